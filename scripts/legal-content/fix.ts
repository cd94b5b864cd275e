import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { policyFingerprint } from "../../waitlist/policies";
import { placeholderSummary, suggestedRecord, withRecord, writtenEntries } from "./record";
import { baseRevision, fileAt, type Base } from "./history";

const root = path.resolve(__dirname, "../..");

/**
 * `npm run check:content -- --fix` for a policy whose text (or the launch mail tool it names) changed since its last
 * dated entry: writes today's entry (its summary the placeholder, which the check refuses until it is written) on top
 * of the entries already there, byte for byte, and the new fingerprint. Where an entry was added on top since the base revision (by hand, or by
 * an earlier --fix), only the fingerprint. Returns a line saying what was written and where the summary goes;
 * undefined when the record needed nothing, or the frontmatter cannot be read (the check says why).
 */
export function fixRecord(
  file: string,
  { base = baseRevision }: { base?: (file: string) => Base | undefined } = {},
): string | undefined {
  const source = readFileSync(file, "utf8");
  let parsed: matter.GrayMatterFile<string>;
  try {
    // With options, gray-matter neither reads nor fills its cache: the check after the fix parses the new text.
    parsed = matter(source, {});
  } catch {
    return undefined;
  }
  const { data } = parsed;
  const fingerprint = policyFingerprint(data, parsed.content);
  if (data.fingerprint === fingerprint || data.fingerprint === undefined) return undefined;
  const updates = Array.isArray(data.updates) ? (data.updates as unknown[]) : [];
  const shown = path.relative(root, file);
  if (updates.length > entriesAtBase(file, base)) {
    writeFileSync(file, source.replace(/^fingerprint:.*$/m, `fingerprint: ${fingerprint}`));
    return `${shown}: wrote the new fingerprint; the entry at the top of "updates" is the one for this change.`;
  }
  const fixed = withRecord(source, suggestedRecord(updates, fingerprint, writtenEntries(source)));
  if (fixed === undefined) return undefined;
  writeFileSync(file, fixed);
  const line = fixed.split(/\r?\n/).findIndex((text) => text.includes(placeholderSummary)) + 1;
  return `${shown}: wrote a new entry dated today and the new fingerprint. Now write what changed in place of "${placeholderSummary}" on line ${line}.`;
}

/** How many entries the file had at the base revision; Infinity when that is not known (then an entry is added). */
function entriesAtBase(file: string, base: (file: string) => Base | undefined): number {
  const revision = base(file);
  const before = revision === undefined ? undefined : fileAt(file, revision.revision);
  if (before === undefined) return Infinity;
  try {
    const { updates } = matter(before).data as { updates?: unknown };
    return Array.isArray(updates) ? updates.length : 0;
  } catch {
    return Infinity;
  }
}
