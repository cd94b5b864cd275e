import matter from "gray-matter";
import { isoDate, policyVersion } from "../config/legal-rules";
import { site } from "../config/site";

/*
 * Which version of the Privacy Policy is in force, for the record of each signup's consent: the date of the
 * policy's last dated change, else its effective date, and the fingerprint of its text, from the frontmatter legal
 * staff edit (content/legal/privacy-policy.mdx, "Editing a policy"). The adapters read the file once per process (a
 * policy changes with a deploy) and pass its text in (readPolicySource in config/legal-rules.ts).
 */

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
  /** The fingerprint of its text (config/legal-rules.ts), which names the version announced. */
  fingerprint?: string;
}

/**
 * Every policy with its dated changes, from the texts of its MDX files (readPolicySources in config/legal-rules.ts),
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
