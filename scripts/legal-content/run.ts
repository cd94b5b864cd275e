import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readEnv } from "../../config/env";
import { site } from "../../config/site";
import { checkLegalContent } from "./check";
import { pastClaimWarnings } from "./claims";
import { checkConsent, fixConsent } from "./consent";
import { fixRecord } from "./fix";
import { stepSummary } from "./summary";

const root = path.resolve(__dirname, "../..");
const folder = path.join(root, "content/legal");

/**
 * npm run check:content, once config/ has loaded (scripts/check-content.ts): the policies named in `args` (else every
 * one in content/legal) and the consent statement, with `--fix` first writing what it can. Prints the problems and
 * warnings, writes the job's summary on GitHub Actions, and returns the exit code: 1 on any problem; a warning alone
 * (a claimed date past) fails nothing.
 */
export function checkContent(args: readonly string[]): number {
  const fix = args.includes("--fix");
  // The files named, else every policy in content/legal.
  const named = args.filter((arg) => arg !== "--fix").map((file) => path.resolve(file));
  const files =
    named.length > 0
      ? named
      : readdirSync(folder)
          .filter((name) => name.endsWith(".mdx"))
          .map((name) => path.join(folder, name));

  let consent: Parameters<typeof checkConsent>[0] = {};
  if (fix) {
    const notes = files.map((file) => fixRecord(file)).filter((note): note is string => note !== undefined);
    const fixedConsent = fixConsent();
    if (fixedConsent) {
      notes.push(fixedConsent.note);
      // config/site.ts as this process loaded it is the old one: check the record just written.
      consent = { consent: fixedConsent.consent };
    }
    console.log(notes.length > 0 ? `${notes.join("\n")}\n` : "--fix: nothing to write.\n");
  }

  // The consent statement too: it is config/site.ts's, and the form, the e-mails and the Privacy Policy show it.
  const problems = [...checkLegalContent(files), ...checkConsent(consent)];
  const warnings = pastClaimWarnings(site.claims, undefined, readFileSync(path.join(root, "config/site.ts"), "utf8"));
  const passed = `${files.length} ${files.length === 1 ? "policy" : "policies"} and the consent statement checked: nothing to fix.`;
  if (problems.length === 0) {
    console.log(passed);
  } else {
    console.error(
      `${problems.join("\n\n")}\n\n${problems.length} problem(s); nothing is published until they are fixed.`,
    );
  }
  // After what to fix: a warning asks for nothing in this pull request.
  if (warnings.length > 0) console.error(`\n${warnings.map((warning) => `Warning: ${warning}`).join("\n\n")}`);
  // On GitHub Actions, the pull request's page shows this: legal staff who edit in the browser never see a terminal.
  const summary = readEnv().GITHUB_STEP_SUMMARY;
  if (summary) appendFileSync(summary, stepSummary(problems, passed, warnings));
  return problems.length === 0 ? 0 : 1;
}
