import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { site } from "./site";

/**
 * What every legal MDX file must hold, as data: the frontmatter's fields, and for the two policies of the spec, every
 * required section as an `##` heading in the spec's order, and what the Privacy Policy must name. With the helpers
 * every side reads a policy by: its dates, its text's fingerprint, its version, its source. The checks that hold the
 * files to these rules are scripts/legal-content/'s (rules.ts, record.ts), for the content check and the build.
 */

export interface LegalFrontmatter {
  title: string;
  slug: string;
  description: string;
  /** YYYY-MM-DD: when the policy first took effect. Never changes. */
  effectiveDate: string;
  /** Every change since, newest first: when it took effect (YYYY-MM-DD) and what changed, in a sentence or two. */
  updates?: { date: string; summary: string }[];
  /** textFingerprint() of the text as it stands: the content check prints it when the text changes. */
  fingerprint: string;
}

export interface RequiredSection {
  /** How the spec names it; used in messages. */
  name: string;
  /** What the `##` heading must contain. */
  heading: RegExp;
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})(?:T00:00:00(?:\.000)?Z)?$/;
/** The longest a description, or a dated entry's summary, may be. */
export const maxDescription = 300;

export const requiredSections: Readonly<Record<string, readonly RequiredSection[]>> = {
  [site.legalPages.privacyPolicy.slug]: [
    { name: "information we collect", heading: /information we collect|information collected/i },
    { name: "how we use it", heading: /\buse\b/i },
    { name: "sharing", heading: /shar(e|ing)/i },
    { name: "cookies and tracking", heading: /cookies/i },
    { name: "your choices", heading: /choices/i },
    { name: "data security", heading: /security/i },
    { name: "children under 13", heading: /children/i },
    { name: "changes to this policy", heading: /changes/i },
    { name: "contact", heading: /contact/i },
    { name: "monetization and payments", heading: /monetization|payments/i },
  ],
  [site.legalPages.termsOfService.slug]: [
    { name: "eligibility", heading: /eligibility/i },
    { name: "your account", heading: /account/i },
    { name: "user conduct", heading: /conduct/i },
    { name: "AI-based matching", heading: /matching/i },
    { name: "collaborations", heading: /collaborations?/i },
    { name: "paid services", heading: /paid services|fees/i },
    { name: "intellectual property", heading: /intellectual property/i },
    { name: "termination", heading: /termination/i },
    { name: "third-party services", heading: /third[- ]party/i },
    { name: "limitation of liability", heading: /liability/i },
    { name: "changes to these terms", heading: /changes/i },
    { name: "contact", heading: /contact/i },
  ],
};

/**
 * Something a policy must say, and say plainly: in a paragraph or list item of its text that matches every pattern
 * of `says` (one place, so that a right and its article are said together), or as an `##` heading of its own.
 */
export interface RequiredStatement {
  /** What the policy must name, as messages say it. */
  name: string;
  /** Every pattern one paragraph or list item must match; or, with `heading`, the `##` heading's. */
  says: readonly RegExp[];
  /** The statement is a section of its own: an `##` heading matching `says`. */
  heading?: true;
  /** Words that make it conditional ("depending on where you live"): a paragraph that has them does not count. */
  unconditional?: RegExp;
  /** What to write, in legal staff's words. */
  fix: string;
}

/** A legal basis, as the GDPR numbers them: Art. 6(1)(a) to (f). */
const legalBasis = /Art\. 6\(1\)\([a-f]\)/;

/**
 * What the GDPR's Art. 13 and 21 ask the Privacy Policy to say, which a heading cannot show: each right it must name,
 * the right to object set out on its own (Art. 21(4)), and a legal basis for each use of a signup that is not the
 * e-mails it agreed to (the page and campaign tag, the invite code and the ranking of inviters).
 */
export const requiredStatements: Readonly<Record<string, readonly RequiredStatement[]>> = {
  [site.legalPages.privacyPolicy.slug]: [
    {
      name: "the right to restriction of processing (Art. 18 GDPR)",
      says: [/\brestrict/i, /Art\. 18\b/],
      fix: 'add it to the rights, with its article, such as "Restriction: ... we keep it and use it for nothing else until the question is settled (Art. 18)."',
    },
    {
      name: "the right to data portability (Art. 20 GDPR)",
      says: [/\bportab/i, /Art\. 20\b/],
      fix: 'add it to the rights, with its article, such as "Portability: the information you gave us in a common machine-readable file (Art. 20)."',
    },
    {
      name: "the right to lodge a complaint with a supervisory authority (Art. 77 GDPR)",
      says: [/\bcomplain/i, /(supervisory|data protection) authority/i],
      unconditional:
        /\bdepending on\b|\bmay have\b|\bwhere (the|local) law\b|\bif (the|your) (local )?law\b|\bin some (countries|places)\b/i,
      fix: 'say it without a condition, such as "You have the right to lodge a complaint with a data protection supervisory authority (Art. 77)."',
    },
    {
      name: "the right to object, in a section of its own (Art. 21(4) GDPR: clearly and separately from any other information)",
      says: [/\bright to object\b/i],
      heading: true,
      fix: 'add an "## " heading for it, such as "## Your Right to Object", and set out there what a person may object to and how.',
    },
    {
      name: "a legal basis for keeping the invite code a signup came by and ranking inviters",
      says: [/\binvit/i, legalBasis],
      fix: 'name it where the legal bases are listed, such as "our legitimate interest in ... the invite code of the link you came by ... (Art. 6(1)(f))".',
    },
    {
      name: "a legal basis for keeping a signup's page and campaign tag",
      says: [/\bcampaign/i, legalBasis],
      fix: 'name it where the legal bases are listed, such as "our legitimate interest in learning which of our posts ... the page and any campaign tag ... (Art. 6(1)(f))".',
    },
  ],
};

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

/**
 * The fingerprint of a policy's text (the MDX after its frontmatter), for
 * telling a changed text from an unchanged one without history: line endings
 * and trailing spaces do not count. Twelve hex digits of its SHA-256.
 */
export function textFingerprint(body: string): string {
  const normal = body
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
  return createHash("sha256").update(normal, "utf8").digest("hex").slice(0, 12);
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
