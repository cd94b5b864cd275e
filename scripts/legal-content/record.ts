import matter from "gray-matter";
import { maxDescription } from "../../config/legal-rules";
import { isoDate, namesOf, policyFingerprint } from "../../waitlist/policies";

/*
 * The record of a policy's changes, held without history: the dated entries under "updates", newest first, each
 * with its summary, and the text's fingerprint, so that a changed text without a dated entry fails, with the lines
 * to paste (or `npm run check:content -- --fix` to write them). history.ts holds the same record against git.
 * Shared by gatsby-node (the build fails) and the content check.
 */

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
  const expected = policyFingerprint(fields, body);
  if (fields.fingerprint === expected) return undefined;
  if (fields.fingerprint === undefined)
    return `${file}: frontmatter field "fingerprint" is missing; set it to ${expected}.`;
  const updates = Array.isArray(fields.updates) ? fields.updates : [];
  const last = isoDate((updates[0] as { date?: unknown } | undefined)?.date) ?? isoDate(fields.effectiveDate);
  // The names of the tool and the provider are part of what the page says (waitlist/policies.ts): naming it, or another, is a change too.
  const what = namesOf(fields);
  const changed = `${file}: ${what} changed since its last dated entry (${last ?? "none"}).`;
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
    fingerprintLine(expected),
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
  return ["updates:", ...newEntryLines(), ...past, fingerprintLine(fingerprint)].join("\n");
}

/**
 * The frontmatter's "fingerprint" line, quoted: YAML reads a bare fingerprint of digits alone (about 1 in 280) as a
 * number, and one like 123e45678901 as a float, which then never matches the text's own.
 */
const fingerprintLine = (fingerprint: string) => `fingerprint: "${fingerprint}"`;

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
