import { execFileSync } from "node:child_process";
import path from "node:path";
import matter from "gray-matter";
import { readEnv } from "../../config/env";
import { isoDate, textFingerprint } from "../../config/legal-rules";

/*
 * The record of a policy's changes, held against git: the dated entries are a
 * record, so an entry the base had is never changed or removed, and a text
 * that changed since the base has a new entry. The fingerprint (legal-rules)
 * catches a forgotten entry without history; this catches an old entry
 * rewritten to match, where history is at hand.
 */

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();

/**
 * The revision a file is compared with: the merge base with the branch a pull
 * request goes to (GITHUB_BASE_REF, on GitHub Actions); else the last commit,
 * when the file has changes not yet committed; else the commit before the
 * last (CI on the main branch). Undefined without git or such a revision.
 */
export function baseRevision(file: string): string | undefined {
  const dir = path.dirname(file);
  try {
    const baseRef = readEnv().GITHUB_BASE_REF;
    if (baseRef) return git(dir, "merge-base", "HEAD", `origin/${baseRef}`);
    const changed = git(dir, "status", "--porcelain", "--", path.basename(file)) !== "";
    if (changed) return "HEAD";
    return git(dir, "rev-parse", "--verify", "--quiet", "HEAD~1");
  } catch {
    return undefined;
  }
}

/** A file as it was at `revision`; undefined where git has no such file there. */
export function fileAt(file: string, revision: string): string | undefined {
  try {
    return git(path.dirname(file), "show", `${revision}:./${path.basename(file)}`);
  } catch {
    return undefined;
  }
}

interface Entry {
  date: string | null;
  summary: string;
}

function entries(frontmatter: Record<string, unknown>): Entry[] {
  const updates = Array.isArray(frontmatter.updates) ? (frontmatter.updates as Record<string, unknown>[]) : [];
  return updates.map((entry) => ({ date: isoDate(entry?.date), summary: String(entry?.summary ?? "").trim() }));
}

/** Problems with a policy's record of changes since `revision`; none when the file did not exist there. */
export function historySince(
  file: string,
  shownAs: string,
  now: { frontmatter: Record<string, unknown>; body: string },
  revision: string,
): string[] {
  const source = fileAt(file, revision);
  if (source === undefined) return [];
  let before: matter.GrayMatterFile<string>;
  try {
    before = matter(source);
  } catch {
    return [];
  }
  const problems: string[] = [];
  const current = entries(now.frontmatter);
  const earlier = entries(before.data);
  for (const entry of earlier) {
    if (!current.some((candidate) => candidate.date === entry.date && candidate.summary === entry.summary)) {
      problems.push(
        `${shownAs}: the entry of ${entry.date} in "updates" was changed or removed since ${revision.slice(0, 12)}; dated entries are a record: add a new one at the top instead.`,
      );
    }
  }
  // New entries go on top, over the ones the base had: several may share a day.
  const added = current.length - earlier.length;
  const same = (a: Entry | undefined, b: Entry) => a?.date === b.date && a?.summary === b.summary;
  const onTop = added > 0 && earlier.every((entry, index) => same(current[added + index], entry));
  if (textFingerprint(before.content) !== textFingerprint(now.body) && !onTop) {
    problems.push(
      `${shownAs}: the text changed since ${revision.slice(0, 12)} without a new dated entry; add one at the top of "updates" with the date the change takes effect and what changed.`,
    );
  }
  return problems;
}
