import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { site } from "../config/site";

/*
 * Which version of the Privacy Policy is in force, for the record of each signup's consent: the date of the
 * policy's last dated change, else its effective date, and the fingerprint of its text (with the launch mail tool it
 * names), from the frontmatter legal staff edit (content/legal/privacy-policy.mdx, "Editing a policy"). The adapters
 * read the file once per process (a policy changes with a deploy) and pass its text in (readPolicySource). The build
 * and the content check read every policy by the same helpers: its dates, its fingerprint, its version, its source.
 */

const datePattern = /^(\d{4})-(\d{2})-(\d{2})(?:T00:00:00(?:\.000)?Z)?$/;

/** Normalises a YAML date, a Date or an ISO string to YYYY-MM-DD, or null when it is not a real date. */
export function isoDate(value: unknown): string | null {
  const text = value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : value;
  if (typeof text !== "string") return null;
  const match = datePattern.exec(text.trim());
  if (!match) return null;
  const [, year, month, day] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day)
    ? `${year}-${month}-${day}`
    : null;
}

/** A text as its fingerprint reads it: line endings, trailing spaces and the edges do not count. */
const normalText = (body: string) =>
  body
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();

/**
 * The fingerprint of a policy's text (the MDX after its frontmatter), for
 * telling a changed text from an unchanged one without history: line endings
 * and trailing spaces do not count. Twelve hex digits of its SHA-256.
 */
export function textFingerprint(body: string): string {
  return createHash("sha256").update(normalText(body), "utf8").digest("hex").slice(0, 12);
}

/**
 * The names a Privacy Policy's frontmatter gives, which its page shows: the launch mail tool, the mail provider, and
 * (issue 67) who controls the data (`controller`: CONTROLLER_NAME, CONTROLLER_ADDRESS) and who hosts it
 * (`hostingProvider`), which the build of a public site holds to its settings. The fingerprint covers each.
 */
export const namedFields = ["launchMailTool", "mailProvider", "controller", "hostingProvider"] as const;
export type NamedField = (typeof namedFields)[number];

/** A name a policy's frontmatter gives (trimmed), undefined while the field is empty or absent. */
export function namedIn(frontmatter: unknown, field: NamedField): string | undefined {
  const value = (typeof frontmatter === "object" && frontmatter !== null ? frontmatter : {}) as Record<string, unknown>;
  const name = typeof value[field] === "string" ? value[field].trim() : "";
  return name === "" ? undefined : name;
}

/**
 * The launch mail tool a policy names in its frontmatter (`launchMailTool`: its legal name and country), which
 * <LaunchMailTool /> shows in its text; undefined while it names none (the field empty or absent).
 */
export const launchMailToolOf = (frontmatter: unknown) => namedIn(frontmatter, "launchMailTool");

/**
 * The mail provider that delivers the site's own e-mails, as a policy names it in its frontmatter (`mailProvider`: its
 * legal name and country), which <MailProvider /> shows; undefined while it names none. The build of a public site
 * refuses a policy that names none, or not the one MAIL_PROVIDER says the site uses (config/mail-providers.ts).
 */
export const mailProviderOf = (frontmatter: unknown) => namedIn(frontmatter, "mailProvider");

/**
 * The fingerprint of what a policy's page says: its text's, and the launch mail tool and the mail provider its
 * frontmatter names, which the text shows (<LaunchMailTool />, <MailProvider />). So naming either, or another, is a
 * change of the policy: it fails the check until a dated entry says so, and gives the policy a new version. While it
 * names neither this is textFingerprint(body), as every fingerprint recorded with a signup before the fields existed;
 * with the tool alone, what it was before the mail provider was named.
 */
export function policyFingerprint(frontmatter: unknown, body: string): string {
  // In a fixed order, each named one only: so a fingerprint made before a field existed stays what it was.
  const named = namedFields.flatMap((field) => {
    const name = namedIn(frontmatter, field);
    return name === undefined ? [] : [`\0${field}\0${name}`];
  });
  if (named.length === 0) return textFingerprint(body);
  // A NUL never occurs in a policy's text, so no text alone has the fingerprint of a text with a name.
  return createHash("sha256")
    .update(`${normalText(body)}${named.join("")}`, "utf8")
    .digest("hex")
    .slice(0, 12);
}

/** What a policy's fingerprint covers besides its text, as the content check's messages name it. */
export function namesOf(frontmatter: unknown): string {
  if (namedIn(frontmatter, "controller") || namedIn(frontmatter, "hostingProvider"))
    return "the text, or the names it gives,";
  const tool = launchMailToolOf(frontmatter) !== undefined;
  const provider = mailProviderOf(frontmatter) !== undefined;
  if (tool && provider) return "the text, or the mail services it names,";
  if (tool) return "the text, or the launch mail tool it names,";
  return provider ? "the text, or the mail provider it names," : "the text";
}

/**
 * The version of a policy in force: the date of its last dated change, else its effective date (YYYY-MM-DD). A day
 * with several changes numbers them from its first: its second change is "2026-12-01.2", its third ".3", so every
 * version names one text, and a change added later never renumbers one already recorded with a signup.
 */
export function policyVersion(frontmatter: unknown): string | null {
  const fields = (typeof frontmatter === "object" && frontmatter !== null ? frontmatter : {}) as Record<
    string,
    unknown
  >;
  const updates = Array.isArray(fields.updates) ? (fields.updates as { date?: unknown }[]) : [];
  const newest = isoDate(updates[0]?.date);
  if (newest === null) return isoDate(fields.effectiveDate);
  const sameDay = updates.filter((entry) => isoDate(entry?.date) === newest).length;
  return sameDay > 1 ? `${newest}.${sameDay}` : newest;
}

/**
 * The text of the policy with `slug` among the MDX files of `folder`; undefined when none has it. The servers and
 * the functions read the Privacy Policy in force with it, from the folder they name.
 */
export function readPolicySource(folder: string, slug: string): string | undefined {
  return readPolicySources(folder).find((source) => matter(source).data.slug === slug);
}

/** The texts of every MDX file of `folder`, by file name; none when there is no such folder. */
export function readPolicySources(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((file) => file.endsWith(".mdx"))
    .sort()
    .map((name) => readFileSync(path.join(folder, name), "utf8"));
}

export interface PolicyInForce {
  /** "2026-11-23"; null when the policy could not be read. */
  version: string | null;
  fingerprint: string | null;
}

/** The Privacy Policy in force, from the text of its MDX file; a line to `warn` when it cannot be read. */
export function policyInForce(
  source: string | undefined,
  warn: (line: string) => void = (line) => console.error(line),
): PolicyInForce {
  try {
    if (source === undefined) throw new Error(`no policy with the slug ${site.legalPages.privacyPolicy.slug}`);
    const { data } = matter(source);
    const version = policyVersion(data);
    if (version === null) throw new Error("its frontmatter has no effective date");
    return { version, fingerprint: typeof data.fingerprint === "string" ? data.fingerprint : null };
  } catch (error) {
    warn(
      `waitlist: the Privacy Policy's version could not be read (${(error as Error).message}); signups record none.`,
    );
    return { version: null, fingerprint: null };
  }
}

/** How a person gave their word: the only two ways there are. */
export type ConsentMethod = "signup" | "confirm";
const consentMethods: Record<ConsentMethod, string> = {
  signup: "by the waitlist form",
  confirm: `by the "${site.waitlist.confirmLabel}" button of the link e-mailed to the address`,
};

/**
 * What a person consents to, for the record kept with their signup and their confirmation: the version of the
 * consent statement they were shown (config/site.ts) and the Privacy Policy in force, by its version and the
 * fingerprint of its text, and how: "statement 2026-11-25; Privacy Policy 2026-11-24 #3f1c0a9b2d4e; by the waitlist
 * form".
 */
export function consentRecord({ version, fingerprint }: PolicyInForce, how?: ConsentMethod): string {
  const policy = version === null ? "unknown" : `${version}${fingerprint ? ` #${fingerprint}` : ""}`;
  const record = `statement ${site.waitlist.consent.version}; ${site.legalPages.privacyPolicy.title} ${policy}`;
  return how ? `${record}; ${consentMethods[how]}` : record;
}

/** A policy's record of changes, as its page shows it under "What changed". */
export interface PolicyRecord {
  slug: string;
  title: string;
  /** Newest first: when each change took effect (YYYY-MM-DD) and what changed. */
  updates: { date: string; summary: string }[];
  /** The fingerprint of its text and the tool it names (policyFingerprint), which names the version announced. */
  fingerprint?: string;
}

/**
 * Every policy with its dated changes, from the texts of its MDX files (readPolicySources),
 * for announcing one (npm run waitlist -- announce-policy-change).
 */
export function policyRecords(sources: readonly string[]): PolicyRecord[] {
  return sources.map((source) => {
    const { data } = matter(source);
    const updates = Array.isArray(data.updates) ? (data.updates as { date?: unknown; summary?: unknown }[]) : [];
    return {
      slug: String(data.slug),
      title: String(data.title),
      ...(typeof data.fingerprint === "string" ? { fingerprint: data.fingerprint } : {}),
      updates: updates.map((entry) => ({
        date: isoDate(entry.date) ?? "",
        summary: String(entry.summary ?? "").trim(),
      })),
    };
  });
}
