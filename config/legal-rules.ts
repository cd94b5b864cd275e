import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { site } from "./site";

/**
 * What every legal MDX file must hold: complete frontmatter, and for the two
 * policies of the spec, every required section as an `##` heading in the
 * spec's order. Pure functions shared by gatsby-node (the build fails) and
 * the content check in the test suite (the pull request fails).
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

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})(?:T00:00:00(?:\.000)?Z)?$/;
const maxDescription = 300;

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

/** Today's date in UTC (YYYY-MM-DD): the entry the content check suggests, and the latest an entry may carry. */
const today = () => new Date().toISOString().slice(0, 10);

/** The summary the content check suggests, to be replaced; it must never reach the page. */
export const placeholderSummary = "<what changed, in a sentence or two>";
/** A summary still holding a placeholder: anything in angle brackets, or words left to fill in. */
const placeholder = /<[^>]*>|\b(?:TODO|TBD|FIXME|lorem ipsum)\b|^\s*(?:\.{3}|…)\s*$/i;

/**
 * Problems with a policy's record of changes: the dated entries are a list,
 * newest first, each after the one before and after the effective date, each
 * saying what changed; and the text is the one the last entry describes (its
 * fingerprint), so that a changed text without a dated entry fails, telling
 * the editor what to add.
 */
export function historyProblems(file: string, frontmatter: unknown, body: string, source?: string): string[] {
  const fingerprint = fingerprintProblem(file, frontmatter, body, source);
  return [...entryProblems(file, frontmatter), ...(fingerprint === undefined ? [] : [fingerprint])];
}

const fieldsOf = (frontmatter: unknown) =>
  (typeof frontmatter === "object" && frontmatter !== null ? frontmatter : {}) as Record<string, unknown>;

/** Problems with the dated entries themselves: each one's date, summary and place in the list. */
export function entryProblems(file: string, frontmatter: unknown): string[] {
  const fields = fieldsOf(frontmatter);
  const problems: string[] = [];
  const updates = fields.updates ?? [];
  if (!Array.isArray(updates)) {
    return [`${file}: frontmatter field "updates" must be a list of changes, each with a "date" and a "summary".`];
  }
  let newer: string | null = null;
  const latest = today();
  updates.forEach((entry: unknown, index) => {
    const where = `${file}: entry ${index + 1} of "updates"`;
    const given = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
    const { date, summary } = given;
    const at = isoDate(date);
    if (at === null) problems.push(`${where} needs a "date" written as YYYY-MM-DD (got "${String(date)}").`);
    // A summary written after "summary:" on one line that holds a quotation mark or a colon reads as other fields.
    for (const field of Object.keys(given).filter((name) => name !== "date" && name !== "summary")) {
      problems.push(
        `${where} has a field "${field}" besides "date" and "summary": part of its summary, it seems. Write the summary on the lines under "summary: >-", indented, as the check prints it.`,
      );
    }
    if (typeof summary !== "string" || summary.trim() === "") {
      problems.push(`${where} needs a "summary": what changed, in a sentence or two.`);
    } else if (placeholder.test(summary)) {
      problems.push(`${where} still has a placeholder in its "summary"; write what changed, in a sentence or two.`);
    } else if (summary.trim().length > maxDescription) {
      problems.push(`${where}: keep the "summary" to ${maxDescription} characters or fewer.`);
    }
    // Newest first; several changes on one day are in the order they were made, the latest on top.
    if (at !== null && newer !== null && at > newer) {
      problems.push(`${where} (${at}) must not be newer than the one above it (${newer}): newest first.`);
    }
    if (at !== null && at > latest) {
      problems.push(
        `${where} (${at}) is after today (${latest}): date a change the day it takes effect, in the pull request that publishes it.`,
      );
    }
    const effective = isoDate(fields.effectiveDate);
    if (at !== null && effective !== null && at <= effective) {
      problems.push(`${where} (${at}) must be later than the effective date (${effective}).`);
    }
    if (at !== null) newer = at;
  });
  return problems;
}

/**
 * The one problem of a text whose fingerprint is not its own: it changed since its last dated entry. The message
 * gives the lines to paste (the entries already there as `source`, the file, writes them, byte for byte), or says
 * that `npm run check:content -- --fix` writes them.
 */
export function fingerprintProblem(
  file: string,
  frontmatter: unknown,
  body: string,
  source?: string,
): string | undefined {
  const fields = fieldsOf(frontmatter);
  const expected = textFingerprint(body);
  if (fields.fingerprint === expected) return undefined;
  if (fields.fingerprint === undefined)
    return `${file}: frontmatter field "fingerprint" is missing; set it to ${expected}.`;
  const updates = Array.isArray(fields.updates) ? fields.updates : [];
  const last = isoDate((updates[0] as { date?: unknown } | undefined)?.date) ?? isoDate(fields.effectiveDate);
  const changed = `${file}: the text changed since its last dated entry (${last ?? "none"}).`;
  const edits = source === undefined ? undefined : recordEdits(source);
  if (edits === undefined) {
    return `${changed} Replace "updates" and "fingerprint" in its frontmatter with these lines, then write what changed in place of the placeholder (and set the date the change takes effect, if not today). On your own computer, \`npm run check:content -- --fix\` writes these lines into the file for you:\n\n${suggestedRecord(updates, expected)}`;
  }
  // Two small edits where the file shows them, never a paste over the entries already published.
  return [
    `${changed} It needs a dated entry for this change, and the new fingerprint. On your own computer, \`npm run check:content -- --fix\` writes both into the file for you; otherwise:`,
    // The box replaces the line "updates:" rather than going under it: an editor that indents a new line by itself
    // (GitHub's, after Enter) would shift what follows; a paste over one line's text moves nothing else.
    `1. Replace the line "updates:" (line ${edits.updatesLine}) with these lines, then write what changed in place of the placeholder (and set the date the change takes effect, if not today):`,
    ["updates:", ...newEntryLines()].join("\n"),
    `2. Replace the line "${edits.fingerprintText}" (line ${edits.fingerprintLine}) with this one:`,
    `fingerprint: ${expected}`,
  ].join("\n\n");
}

/** Where the frontmatter's "updates:" (as a block) and "fingerprint:" lines are, 1-based; undefined without both. */
function recordEdits(source: string) {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const end = lines.indexOf("---", 1);
  if (lines[0]?.trim() !== "---" || end < 0) return undefined;
  const updatesAt = lines.findIndex((line, index) => index < end && /^updates:\s*$/.test(line));
  const fingerprintAt = lines.findIndex((line, index) => index < end && /^fingerprint:/.test(line));
  if (updatesAt < 0 || fingerprintAt < 0) return undefined;
  return { updatesLine: updatesAt + 1, fingerprintLine: fingerprintAt + 1, fingerprintText: lines[fingerprintAt]! };
}

/** Today's entry, its summary the placeholder the check refuses until it is written. */
const newEntryLines = () => [`  - date: ${today()}`, ...summaryLines(placeholderSummary)];

/**
 * The entries under the frontmatter's `updates:` as the file writes them, line for line (a past summary is never
 * re-wrapped: what was published is a record), or undefined when the file has none written as a block.
 */
export function writtenEntries(source: string): string | undefined {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  if (lines[0]?.trim() !== "---") return undefined;
  const end = lines.indexOf("---", 1);
  const start = lines.findIndex((line, index) => index < end && /^updates:\s*$/.test(line));
  if (start < 0) return undefined;
  let stop = start + 1;
  while (stop < end && (/^\s/.test(lines[stop]!) || lines[stop]!.trim() === "")) stop++;
  const entries = lines.slice(start + 1, stop);
  while (entries.length > 0 && entries[entries.length - 1]!.trim() === "") entries.pop();
  return entries.length > 0 ? entries.join("\n") : undefined;
}

/**
 * What to paste over the frontmatter's "updates" and "fingerprint", as plain YAML: today's entry on top (its summary
 * a placeholder the check refuses until it is written), the entries already there (as the file writes them, when
 * `written` gives them), and the new fingerprint.
 */
export function suggestedRecord(updates: readonly unknown[], fingerprint: string, written?: string): string {
  const past =
    written === undefined
      ? (updates as { date?: unknown; summary?: unknown }[]).flatMap((update) => [
          `  - date: ${isoDate(update?.date) ?? String(update?.date)}`,
          ...summaryLines(String(update?.summary ?? "")),
        ])
      : [written];
  return ["updates:", ...newEntryLines(), ...past, `fingerprint: ${fingerprint}`].join("\n");
}

/**
 * A source with its record replaced: `record` (suggestedRecord's lines) in place of the frontmatter's "updates" and
 * "fingerprint", where they were; undefined when the frontmatter has no "fingerprint" line to replace.
 */
export function withRecord(source: string, record: string): string | undefined {
  const newline = source.includes("\r\n") ? "\r\n" : "\n";
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const end = lines.indexOf("---", 1);
  if (lines[0]?.trim() !== "---" || end < 0) return undefined;
  const fingerprintAt = lines.findIndex((line, index) => index < end && /^fingerprint:/.test(line));
  if (fingerprintAt < 0) return undefined;
  const start = lines.findIndex((line, index) => index < end && /^updates:/.test(line));
  let stop = start + 1;
  while (start >= 0 && stop < end && (/^\s/.test(lines[stop]!) || lines[stop]!.trim() === "")) stop++;
  const replaced = (index: number) => index === fingerprintAt || (start >= 0 && index >= start && index < stop);
  // The record goes where "updates" was, else where "fingerprint" was.
  const at = start >= 0 ? start : fingerprintAt;
  const head = lines.slice(0, at).filter((_, index) => !replaced(index));
  const tail = lines.slice(at).filter((_, offset) => !replaced(at + offset));
  return [...head, ...record.split("\n"), ...tail].join(newline);
}

/**
 * A summary as YAML: a folded block (`>-`), its text on the lines below, where quotation marks, colons and the like
 * need no escaping, so an editor can write anything in place of the placeholder. Double-quoted (JSON) in the rare
 * case the block would not read back as the same text.
 */
function summaryLines(text: string): string[] {
  const lines: string[] = [];
  for (const word of text.trim().split(" ")) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + word.length <= 100) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  const block = ["    summary: >-", ...lines.map((line) => `      ${line}`)];
  try {
    if (matter(`---\n${block.join("\n")}\n---\n`).data.summary === text) return block;
  } catch {
    // Not YAML as written: quoted below.
  }
  return [`    summary: ${JSON.stringify(text)}`];
}

/** Problems with a file's frontmatter, each naming the file and the field. */
export function frontmatterProblems(file: string, data: unknown): string[] {
  const fields = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  const problems: string[] = [];
  const text = (field: keyof LegalFrontmatter) => {
    const value = fields[field];
    if (value === undefined || value === null || value === "") {
      problems.push(`${file}: frontmatter field "${field}" is missing.`);
      return null;
    }
    if (typeof value !== "string" || value.trim() === "") {
      problems.push(`${file}: frontmatter field "${field}" must be text.`);
      return null;
    }
    return value.trim();
  };
  const title = text("title");
  const slug = text("slug");
  const linked = Object.values(site.legalPages).find((page) => page.slug === slug);
  if (linked && title !== null && title !== linked.title) {
    problems.push(
      `${file}: frontmatter field "title" must be "${linked.title}", the name the site's links to it use (config/site.ts, legalPages; change both together) (got "${title}").`,
    );
  }
  if (slug !== null && !slugPattern.test(slug)) {
    problems.push(
      `${file}: frontmatter field "slug" must be lowercase words joined by hyphens, like "privacy-policy" (got "${slug}").`,
    );
  }
  const description = text("description");
  if (description !== null && description.length > maxDescription) {
    problems.push(
      `${file}: frontmatter field "description" is ${description.length} characters; keep it to ${maxDescription} or fewer.`,
    );
  }
  const date = fields.effectiveDate;
  if (date === undefined || date === null || date === "") {
    problems.push(`${file}: frontmatter field "effectiveDate" is missing.`);
  } else if (isoDate(date) === null) {
    problems.push(
      `${file}: frontmatter field "effectiveDate" must be a date written as YYYY-MM-DD (got "${String(date)}").`,
    );
  }
  return problems;
}

/** Positions (into `values`) of one longest strictly increasing subsequence. */
function longestIncreasing(values: readonly number[]): Set<number> {
  const best: number[][] = [];
  values.forEach((value, index) => {
    let chain: number[] = [];
    for (let before = 0; before < index; before++) {
      if (values[before]! < value && best[before]!.length > chain.length) chain = best[before]!;
    }
    best[index] = [...chain, index];
  });
  return new Set(best.reduce<number[]>((longest, chain) => (chain.length > longest.length ? chain : longest), []));
}

/**
 * Problems with a policy's `##` headings: every required section must be
 * present, in the spec's order. Files whose slug has no rules (a future
 * policy) pass.
 */
export function sectionProblems(file: string, slug: string, headings: readonly string[]): string[] {
  const rules = requiredSections[slug];
  if (!rules) return [];
  const found = rules.map((rule) => ({ rule, at: headings.findIndex((heading) => rule.heading.test(heading)) }));
  const present = found.filter(({ at }) => at >= 0);
  const inOrder = longestIncreasing(present.map(({ at }) => at));
  const problems: string[] = [];
  for (const { rule, at } of found) {
    if (at < 0) {
      problems.push(`${file}: required section "${rule.name}" is missing; add an "## " heading for it.`);
      continue;
    }
    const position = present.findIndex((entry) => entry.rule === rule);
    if (inOrder.has(position)) continue;
    const next = present.find((entry, index) => index > position && inOrder.has(index));
    const previous = [...present]
      .reverse()
      .find((entry, index) => present.length - 1 - index < position && inOrder.has(present.length - 1 - index));
    const where = next ? `before "## ${headings[next.at]}"` : `after "## ${headings[previous!.at]}"`;
    problems.push(
      `${file}: required section "${rule.name}" ("## ${headings[at]}") is out of the spec's order; move it ${where}.`,
    );
  }
  return problems;
}

/** Problems with slugs shared by two files. */
export function duplicateSlugProblems(files: readonly { file: string; slug: string }[]): string[] {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const { file, slug } of files) {
    const first = seen.get(slug);
    if (first) problems.push(`${file}: frontmatter field "slug" is "${slug}", already used by ${first}.`);
    else seen.set(slug, file);
  }
  return problems;
}
