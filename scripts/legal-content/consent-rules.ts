import { textFingerprint } from "../../waitlist/policies";

/*
 * The consent statement's record (config/site.ts, waitlist.consent): every signup and confirmation records the
 * version of the wording the person was shown (waitlist/policies.ts), so one version names one wording. Its
 * fingerprint says which wording that is, as a policy's does for its text: a wording changed under the same version
 * fails the content check and the build, as a policy changed without a dated entry does. Pure functions shared by
 * both; scripts/legal-content/consent.ts adds the comparison with git.
 */

/** Where the statement lives, as every message names it. */
export const consentFile = "config/site.ts";

export interface ConsentRecord {
  /** The day the wording was published, YYYY-MM-DD; a second wording of one day is "YYYY-MM-DD.2", and so on. */
  version: string;
  statement: string;
  /** textFingerprint() of the statement, as the content check printed it. */
  fingerprint?: string;
}

const versionPattern = /^(\d{4}-\d{2}-\d{2})(?:\.([2-9]|[1-9]\d+))?$/;
const today = () => new Date().toISOString().slice(0, 10);

/** Orders versions: by day, then by the number after it (none is the first). */
function compareVersions(a: string, b: string): number {
  const [dayA = "", nA = "1"] = a.split(".");
  const [dayB = "", nB = "1"] = b.split(".");
  return dayA === dayB ? Number(nA) - Number(nB) : dayA < dayB ? -1 : 1;
}

/** The version a new wording gets today: today's date, or the next number of today when `after` is today's. */
export function nextConsentVersion(after: string | undefined, latest: string = today()): string {
  if (after === undefined || !after.startsWith(latest)) return latest;
  const n = Number(after.split(".")[1] ?? "1");
  return `${latest}.${n + 1}`;
}

/** The version and fingerprint written in a revision of config/site.ts (git's copy of the file), where it has them. */
export function recordedConsent(source: string): { version?: string; fingerprint?: string } {
  const block = /\bconsent:\s*\{([\s\S]*?)\n\s*\},/.exec(source)?.[1] ?? "";
  return {
    version: /^\s*version:\s*"([^"]*)"/m.exec(block)?.[1],
    fingerprint: /^\s*fingerprint:\s*"([^"]*)"/m.exec(block)?.[1],
  };
}

/**
 * config/site.ts with waitlist.consent's version and fingerprint lines replaced by `fix`'s (the fingerprint line added
 * under the version's when there is none); undefined when the file has no such block.
 */
export function withConsent(source: string, fix: { version?: string; fingerprint: string }): string | undefined {
  const block = /(\bconsent:\s*\{)([\s\S]*?)(\n\s*\},)/.exec(source);
  if (!block || !/^[ \t]*version:\s*"[^"]*",$/m.test(block[2]!)) return undefined;
  let inner = block[2]!;
  if (fix.version !== undefined)
    inner = inner.replace(/^([ \t]*)version:\s*"[^"]*",$/m, `$1version: "${fix.version}",`);
  inner = /^[ \t]*fingerprint:\s*"[^"]*",$/m.test(inner)
    ? inner.replace(/^([ \t]*)fingerprint:\s*"[^"]*",$/m, `$1fingerprint: "${fix.fingerprint}",`)
    : inner.replace(/^([ \t]*)(version:\s*"[^"]*",)$/m, `$1$2\n$1fingerprint: "${fix.fingerprint}",`);
  return source.slice(0, block.index) + block[1] + inner + block[3] + source.slice(block.index + block[0].length);
}

/** The lines of waitlist.consent to paste, indented as config/site.ts writes them. */
export function consentLines(version: string | undefined, fingerprint: string): string {
  return [version === undefined ? [] : [`      version: "${version}",`], `      fingerprint: "${fingerprint}",`]
    .flat()
    .join("\n");
}

/**
 * The version and fingerprint the statement's record needs (no version when only the fingerprint is to change), or
 * undefined when it is right: see consentProblems.
 */
export function suggestedConsent(
  consent: ConsentRecord,
  base?: { version?: string; fingerprint?: string },
  latest: string = today(),
): { version?: string; fingerprint: string } | undefined {
  const day = versionPattern.exec(consent.version)?.[1];
  const fingerprint = textFingerprint(consent.statement);
  const changedSinceBase = base?.fingerprint !== undefined && base.fingerprint !== fingerprint;
  // Without history, a version of today counts as new: the wording is being published today.
  const newVersion =
    base?.version !== undefined
      ? compareVersions(consent.version, base.version) > 0
      : day !== undefined && day === latest;
  if (consent.fingerprint === fingerprint && !(changedSinceBase && !newVersion)) return undefined;
  if (consent.fingerprint !== undefined && newVersion) return { fingerprint };
  if (consent.fingerprint === undefined) return { fingerprint };
  return { version: nextConsentVersion(base?.version ?? consent.version, latest), fingerprint };
}

/**
 * Problems with the statement's record, one per cause: a version that is no date or is after today, and a wording
 * that is not the one its version names. `base` is the version and fingerprint at the revision the change is
 * compared with (`since` says which, in words), where git history is at hand: then a wording changed since under
 * the same version fails even with its new fingerprint copied in.
 */
export function consentProblems(
  consent: ConsentRecord,
  base?: { version?: string; fingerprint?: string; since: string },
  latest: string = today(),
  source?: string,
): string[] {
  // Where the lines are, for an editor who edits in the browser: config/site.ts's text, when at hand.
  const at = (name: "version" | "fingerprint") => {
    const lines = (source ?? "").split("\n");
    const block = lines.findIndex((line) => /\bconsent:\s*\{/.test(line));
    const index = lines.findIndex(
      (line, number) => number > block && block >= 0 && new RegExp(`^[ \\t]*${name}:\\s*"`).test(line),
    );
    return index < 0 ? "" : ` (line ${index + 1})`;
  };
  const field = (name: keyof ConsentRecord) => `waitlist.consent.${name}`;
  const problems: string[] = [];
  const day = versionPattern.exec(consent.version)?.[1];
  if (day === undefined) {
    problems.push(
      `${consentFile}: ${field("version")} must be the day the wording is published, written as YYYY-MM-DD (got "${consent.version}").`,
    );
  } else if (day > latest) {
    problems.push(
      `${consentFile}: ${field("version")} (${consent.version}) is after today (${latest}): a wording's version is the day it is published, in the pull request that publishes it.`,
    );
  }
  const fix = suggestedConsent(consent, base, latest);
  if (fix === undefined) return problems;
  const lines = consentLines(fix.version, fix.fingerprint);
  if (consent.fingerprint === undefined) {
    problems.push(
      `${consentFile}: ${field("fingerprint")} is missing. Add this line under ${field("version")}${at("version")}:\n\n${lines}`,
    );
  } else if (fix.version === undefined) {
    // The version is new already; only the fingerprint is left to write.
    problems.push(
      `${consentFile}: ${field("fingerprint")} is not the fingerprint of the statement's wording. Replace its line${at("fingerprint")} with this one:\n\n${lines}`,
    );
  } else {
    const since = base?.since ? ` since ${base.since}` : "";
    problems.push(
      `${consentFile}: the wording of ${field("statement")} changed${since}, but its version (${consent.version}) did not. Every signup keeps the version of the wording the person was shown, so a new wording needs a new version. In ${consentFile}, replace the "version"${at("version")} and "fingerprint"${at("fingerprint")} lines of waitlist.consent with these (\`npm run check:content -- --fix\` writes them for you):\n\n` +
        lines,
    );
  }
  return problems;
}
