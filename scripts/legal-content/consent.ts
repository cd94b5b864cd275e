import path from "node:path";
import { consentProblems, recordedConsent, type ConsentRecord } from "../../config/consent-rules";
import { site } from "../../config/site";
import { baseRevision, fileAt } from "./history";

const siteFile = path.resolve(__dirname, "../../config/site.ts");

/**
 * The consent statement's record (config/site.ts, waitlist.consent), held against its fingerprint and, where git
 * knows an earlier revision of the file (`base`, as for the policies), against the version recorded there.
 */
export function checkConsent({
  consent = site.waitlist.consent,
  file = siteFile,
  base = baseRevision,
}: { consent?: ConsentRecord; file?: string; base?: (file: string) => string | undefined } = {}): string[] {
  const revision = base(file);
  const before = revision === undefined ? undefined : fileAt(file, revision);
  return consentProblems(
    consent,
    before === undefined ? undefined : { ...recordedConsent(before), since: revision!.slice(0, 12) },
  );
}
