import { consentProblems, nextConsentVersion, recordedConsent, withConsent } from "./consent-rules";
import { textFingerprint } from "../../waitlist/policies";
import { site } from "../../config/site";

const statement = "We'll e-mail you when early access opens: nothing else.";
const recorded = { version: "2026-11-25", statement, fingerprint: textFingerprint(statement) };
const today = "2026-11-26";

describe("the consent statement's record", () => {
  it("holds the site's own statement: its fingerprint is its wording's", () => {
    expect(consentProblems(site.waitlist.consent)).toEqual([]);
  });

  it("accepts a wording with its version and fingerprint", () => {
    expect(consentProblems(recorded, undefined, today)).toEqual([]);
    expect(consentProblems(recorded, { ...recorded, since: "the main branch" }, today)).toEqual([]);
  });

  it("fails a wording changed under the same version, naming config/site.ts and the fields, with the lines to paste", () => {
    const changed = { ...recorded, statement: `${statement} Or launch news.` };
    expect(consentProblems(changed, undefined, today)).toEqual([
      `config/site.ts: the wording of waitlist.consent.statement changed, but its version (2026-11-25) did not. Every signup keeps the version of the wording the person was shown, so a new wording needs a new version. In config/site.ts, replace the "version" and "fingerprint" lines of waitlist.consent with these (\`npm run check:content -- --fix\` writes them for you):\n\n      version: "2026-11-26",\n      fingerprint: "${textFingerprint(changed.statement)}",`,
    ]);
  });

  it("takes the printed lines as they are: with them the check passes", () => {
    const changed = { ...recorded, statement: `${statement} Or launch news.` };
    const [problem] = consentProblems(changed, undefined, today);
    const pasted = recordedConsent(`consent: {\n${problem!.slice(problem!.indexOf("\n\n") + 2)}\n    },`);
    expect(consentProblems({ ...changed, ...pasted } as typeof changed, undefined, today)).toEqual([]);
  });

  it("against git, fails a wording changed under the base's version even with the new fingerprint copied in", () => {
    const changed = { ...recorded, statement: `${statement} Or launch news.` };
    const copied = { ...changed, fingerprint: textFingerprint(changed.statement) };
    const base = { version: "2026-11-25", fingerprint: recorded.fingerprint, since: "the main branch" };
    expect(consentProblems(copied, base, today)).toEqual([
      expect.stringMatching(
        /^config\/site\.ts: the wording of waitlist\.consent\.statement changed since the main branch, but its version \(2026-11-25\) did not\..*\n\n {6}version: "2026-11-26",\n {6}fingerprint: "[0-9a-f]{12}",$/s,
      ),
    ]);
    expect(consentProblems({ ...copied, version: "2026-11-26" }, base, today)).toEqual([]);
  });

  it("numbers a second wording of one day, and asks only for the fingerprint once the version is new", () => {
    expect(nextConsentVersion("2026-11-25", today)).toBe("2026-11-26");
    expect(nextConsentVersion("2026-11-26", today)).toBe("2026-11-26.2");
    expect(nextConsentVersion("2026-11-26.2", today)).toBe("2026-11-26.3");
    const base = { version: "2026-11-26", fingerprint: recorded.fingerprint, since: "your last commit" };
    const changed = { ...recorded, version: "2026-11-26", statement: "Another wording." };
    expect(consentProblems(changed, base, today)[0]).toMatch(/\n {6}version: "2026-11-26\.2",\n/);
    expect(consentProblems({ ...changed, version: "2026-11-26.2" }, base, today)).toEqual([
      `config/site.ts: waitlist.consent.fingerprint is not the fingerprint of the statement's wording. Replace its line with this one:\n\n      fingerprint: "${textFingerprint("Another wording.")}",`,
    ]);
  });

  it.each([
    ["November 26", /waitlist\.consent\.version must be the day the wording is published, written as YYYY-MM-DD/],
    ["2026-11-27", /waitlist\.consent\.version \(2026-11-27\) is after today \(2026-11-26\)/],
  ])("refuses the version %j", (version, problem) => {
    expect(consentProblems({ ...recorded, version }, undefined, today)).toEqual([expect.stringMatching(problem)]);
  });

  it("asks for a missing fingerprint by its line", () => {
    expect(consentProblems({ version: "2026-11-25", statement }, undefined, today)).toEqual([
      `config/site.ts: waitlist.consent.fingerprint is missing. Add this line under waitlist.consent.version:\n\n      fingerprint: "${recorded.fingerprint}",`,
    ]);
  });

  it("--fix writes the version and fingerprint into config/site.ts's consent block, and nothing else", () => {
    const source = `const site = {\n  waitlist: {\n    consent: {\n      version: "2026-11-25",\n      fingerprint: "0123456789ab",\n      statement: "x",\n    },\n  },\n  other: { version: "1", fingerprint: "f" },\n};\n`;
    expect(withConsent(source, { version: "2026-11-26", fingerprint: "ba9876543210" })).toBe(
      source.replace('"2026-11-25"', '"2026-11-26"').replace('"0123456789ab"', '"ba9876543210"'),
    );
    expect(withConsent(source, { fingerprint: "ba9876543210" })).toBe(
      source.replace('"0123456789ab"', '"ba9876543210"'),
    );
    const without = source.replace('      fingerprint: "0123456789ab",\n', "");
    expect(withConsent(without, { fingerprint: "ba9876543210" })).toBe(
      without.replace('version: "2026-11-25",\n', 'version: "2026-11-25",\n      fingerprint: "ba9876543210",\n'),
    );
  });

  it("reads the version and fingerprint from a revision of config/site.ts", () => {
    const source = `  waitlist: {\n    consent: {\n      version: "2026-11-25",\n      statement: \`\${name} says so.\`,\n      fingerprint: "0123456789ab",\n    },\n    other: { version: "x" },`;
    expect(recordedConsent(source)).toEqual({ version: "2026-11-25", fingerprint: "0123456789ab" });
    expect(recordedConsent("export const site = {};")).toEqual({ version: undefined, fingerprint: undefined });
  });
});
