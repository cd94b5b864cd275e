import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  consentFile,
  consentProblems,
  recordedConsent,
  suggestedConsent,
  withConsent,
  type ConsentRecord,
} from "./consent-rules";
import { site } from "../../config/site";
import { baseRevision, fileAt, type Base } from "./history";

const siteFile = path.resolve(__dirname, "../../config/site.ts");

interface ConsentCheck {
  consent?: ConsentRecord;
  file?: string;
  base?: (file: string) => Base | undefined;
}

/** The version and fingerprint config/site.ts had at the base revision, and how messages name that revision. */
function atBase(file: string, base: ConsentCheck["base"] & {}) {
  const revision = base(file);
  const before = revision === undefined ? undefined : fileAt(file, revision.revision);
  return before === undefined ? undefined : { ...recordedConsent(before), since: revision!.name };
}

/**
 * The consent statement's record (config/site.ts, waitlist.consent), held against its fingerprint and, where git
 * knows an earlier revision of the file (`base`, as for the policies), against the version recorded there.
 */
export function checkConsent({
  consent = site.waitlist.consent,
  file = siteFile,
  base = baseRevision,
}: ConsentCheck = {}): string[] {
  return consentProblems(consent, atBase(file, base), undefined, readFileSync(file, "utf8"));
}

/**
 * `npm run check:content -- --fix`: writes into config/site.ts the version and fingerprint a new wording needs.
 * Returns the record as it now is and a line saying what was written; undefined when nothing needed writing.
 */
export function fixConsent({
  consent = site.waitlist.consent,
  file = siteFile,
  base = baseRevision,
}: ConsentCheck = {}): { consent: ConsentRecord; note: string } | undefined {
  const fix = suggestedConsent(consent, atBase(file, base));
  const fixed = fix && withConsent(readFileSync(file, "utf8"), fix);
  if (fix === undefined || fixed === undefined) return undefined;
  writeFileSync(file, fixed);
  const wrote = fix.version === undefined ? "fingerprint" : `version (${fix.version}) and fingerprint`;
  return {
    consent: { ...consent, ...fix },
    note: `${consentFile}: wrote waitlist.consent's new ${wrote}, for the new wording of the statement.`,
  };
}
