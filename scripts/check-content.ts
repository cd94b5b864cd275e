// npm run check:content: the content check of content/legal and of the consent statement, for legal staff, printed
// as plain text (what to fix, and the lines to paste as they are), not inside a test runner's diff. Exits 1 on any
// problem. With --fix it first writes what it can: a changed policy's new entry (its summary left to write) and
// fingerprint, a new wording's version and fingerprint. On GitHub Actions it also writes the job's summary.
import { appendFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { readEnv } from "../config/env";
import { checkLegalContent } from "./legal-content/check";
import { checkConsent, fixConsent } from "./legal-content/consent";
import { fixRecord } from "./legal-content/fix";
import { stepSummary } from "./legal-content/summary";

const folder = path.resolve(__dirname, "../content/legal");
const args = process.argv.slice(2);
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
const passed = `${files.length} ${files.length === 1 ? "policy" : "policies"} and the consent statement checked: nothing to fix.`;
if (problems.length === 0) {
  console.log(passed);
} else {
  console.error(
    `${problems.join("\n\n")}\n\n${problems.length} problem(s); nothing is published until they are fixed.`,
  );
  process.exitCode = 1;
}
// On GitHub Actions, the pull request's page shows this: legal staff who edit in the browser never see a terminal.
const summary = readEnv().GITHUB_STEP_SUMMARY;
if (summary) appendFileSync(summary, stepSummary(problems, passed));
