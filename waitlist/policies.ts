import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { isoDate, policyVersion } from "../config/legal-rules";
import { site } from "../config/site";

/*
 * Which version of the Privacy Policy is in force, for the record of each
 * signup's consent: the date of the policy's last dated change, else its
 * effective date, from the frontmatter legal staff edit
 * (content/legal/privacy-policy.mdx, "Editing a policy"). Read once per
 * process: a policy changes with a deploy. On Netlify the functions carry
 * content/legal (netlify.toml's included_files) and run from the site's root.
 */

const folders = [path.resolve(__dirname, "../content/legal"), path.resolve(process.cwd(), "content/legal")];

let cached: { version: string | null; fingerprint: string | null } | undefined;

/** The version of the Privacy Policy in force ("2026-11-23"); null, and a line on stderr, when it cannot be read. */
export function privacyPolicyVersion(): string | null {
  return readPolicy().version;
}

/**
 * What a person consents to, for the record kept with their signup and
 * their confirmation: the version of the consent statement they were shown
 * (config/site.ts) and the Privacy Policy in force, by its version and the
 * fingerprint of its text (the frontmatter's, which the content check keeps
 * true), and how: "statement 2026-11-25; Privacy Policy 2026-11-24 #3f1c0a9b2d4e;
 * by the waitlist form".
 */
export function consentRecord(how?: ConsentMethod): string {
  const { version, fingerprint } = readPolicy();
  const policy = version === null ? "unknown" : `${version}${fingerprint ? ` #${fingerprint}` : ""}`;
  const record = `statement ${site.waitlist.consent.version}; ${site.legalPages.privacyPolicy.title} ${policy}`;
  return how ? `${record}; ${consentMethods[how]}` : record;
}

/** How a person gave their word: the only two ways there are. */
export type ConsentMethod = "signup" | "confirm";
const consentMethods: Record<ConsentMethod, string> = {
  signup: "by the waitlist form",
  confirm: `by the "${site.waitlist.confirmLabel}" button of the link e-mailed to the address`,
};

function readPolicy(): { version: string | null; fingerprint: string | null } {
  if (cached) return cached;
  let version: string | null = null;
  let fingerprint: string | null = null;
  try {
    const folder = folders.find((candidate) => existsSync(candidate));
    if (!folder) throw new Error(`no content/legal folder at ${folders.join(" or ")}`);
    for (const name of readdirSync(folder).filter((file) => file.endsWith(".mdx"))) {
      const { data } = matter(readFileSync(path.join(folder, name), "utf8"));
      if (data.slug === site.legalPages.privacyPolicy.slug) {
        version = policyVersion(data);
        fingerprint = typeof data.fingerprint === "string" ? data.fingerprint : null;
      }
    }
    if (version === null) throw new Error(`no policy with the slug ${site.legalPages.privacyPolicy.slug}`);
  } catch (error) {
    console.error(
      `waitlist: the Privacy Policy's version could not be read (${(error as Error).message}); signups record none.`,
    );
  }
  cached = { version, fingerprint };
  return cached;
}

/** A policy's record of changes, as its page shows it under "What changed". */
export interface PolicyRecord {
  slug: string;
  title: string;
  /** Newest first: when each change took effect (YYYY-MM-DD) and what changed. */
  updates: { date: string; summary: string }[];
}

/** Every policy in content/legal with its dated changes, for announcing one (npm run waitlist -- announce-policy-change). */
export function policyRecords(): PolicyRecord[] {
  const folder = folders.find((candidate) => existsSync(candidate));
  if (!folder) throw new Error(`no content/legal folder at ${folders.join(" or ")}`);
  return readdirSync(folder)
    .filter((file) => file.endsWith(".mdx"))
    .sort()
    .map((file) => {
      const { data } = matter(readFileSync(path.join(folder, file), "utf8"));
      const updates = Array.isArray(data.updates) ? (data.updates as { date?: unknown; summary?: unknown }[]) : [];
      return {
        slug: String(data.slug),
        title: String(data.title),
        updates: updates.map((entry) => ({
          date: isoDate(entry.date) ?? "",
          summary: String(entry.summary ?? "").trim(),
        })),
      };
    });
}
