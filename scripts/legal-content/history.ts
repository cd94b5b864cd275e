import { execFileSync } from "node:child_process";
import path from "node:path";
import matter from "gray-matter";
import { readEnv } from "../../config/env";
import { isoDate, launchMailToolOf, mailProviderOf, policyFingerprint } from "../../waitlist/policies";

/*
 * The record of a policy's changes, held against git: the dated entries are a
 * record, so an entry the base had is never changed or removed, and a text
 * that changed since the base has a new entry. The fingerprint (record.ts)
 * catches a forgotten entry without history; this catches an old entry
 * rewritten to match, where history is at hand.
 */

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();

/** The revision a file is compared with, and how a message names it to legal staff. */
export interface Base {
  revision: string;
  /** "the main branch", "your last commit", "the commit before the last". */
  name: string;
}

/**
 * The revision a file is compared with: the merge base with the branch a pull
 * request goes to (GITHUB_BASE_REF, on GitHub Actions); else the last commit,
 * when the file has changes not yet committed; else the commit before the
 * last (CI on the main branch). Undefined without git or such a revision (a
 * clone of one commit cannot name the branch: CI fetches it).
 */
export function baseRevision(file: string): Base | undefined {
  const dir = path.dirname(file);
  try {
    const baseRef = readEnv().GITHUB_BASE_REF;
    if (baseRef)
      return { revision: git(dir, "merge-base", "HEAD", `origin/${baseRef}`), name: `the ${baseRef} branch` };
    const changed = git(dir, "status", "--porcelain", "--", path.basename(file)) !== "";
    if (changed) return { revision: "HEAD", name: "your last commit" };
    return { revision: git(dir, "rev-parse", "--verify", "--quiet", "HEAD~1"), name: "the commit before the last" };
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

/** What a policy's record says against the base: entries rewritten or removed, or a new text without a new entry. */
export interface SinceBase {
  /** One problem naming every entry the base had that is changed or gone: one cause, one problem. */
  rewritten?: string;
  /** The text is not the base's, and no entry was added on top. */
  unrecorded?: string;
}

/** A policy's record of changes since `base`; nothing when the file did not exist there. */
export function historySince(
  file: string,
  shownAs: string,
  now: { frontmatter: Record<string, unknown>; body: string },
  base: Base,
): SinceBase {
  const source = fileAt(file, base.revision);
  if (source === undefined) return {};
  let before: matter.GrayMatterFile<string>;
  try {
    before = matter(source);
  } catch {
    return {};
  }
  const current = entries(now.frontmatter);
  const earlier = entries(before.data);
  const lost = earlier.filter(
    (entry) => !current.some((candidate) => candidate.date === entry.date && candidate.summary === entry.summary),
  );
  if (lost.length > 0) {
    const dates = [...new Set(lost.map((entry) => entry.date))].join(" and ");
    return {
      rewritten: `${shownAs}: the entry of ${dates} under "updates" is not as it is on ${base.name}. Entries already there are a record, so put ${lost.length === 1 ? "it" : "them"} back word for word, and add a new entry at the top with the date the change takes effect and what changed.`,
    };
  }
  // New entries go on top, over the ones the base had: several may share a day.
  const added = current.length - earlier.length;
  const same = (a: Entry | undefined, b: Entry) => a?.date === b.date && a?.summary === b.summary;
  const onTop = added > 0 && earlier.every((entry, index) => same(current[added + index], entry));
  if (policyFingerprint(before.data, before.content) !== policyFingerprint(now.frontmatter, now.body) && !onTop) {
    const tool = launchMailToolOf(before.data) !== launchMailToolOf(now.frontmatter);
    const provider = mailProviderOf(before.data) !== mailProviderOf(now.frontmatter);
    const what = tool
      ? "the launch mail tool it names (launchMailTool)"
      : provider
        ? "the mail provider it names (mailProvider)"
        : "the text";
    return {
      unrecorded: `${shownAs}: ${what} is not the one on ${base.name}, but "updates" has no new entry at the top; add one with the date the change takes effect and what changed.`,
    };
  }
  return {};
}
