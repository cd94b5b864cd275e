// npm run check:content: the content check of content/legal and of the consent statement, for legal staff, printed
// as plain text (what to fix, and the lines to paste as they are), not inside a test runner's diff. Exits 1 on any
// problem.
import { readdirSync } from "node:fs";
import path from "node:path";
import { checkLegalContent } from "./legal-content/check";
import { checkConsent } from "./legal-content/consent";

const folder = path.resolve(__dirname, "../content/legal");
// The files named, else every policy in content/legal.
const named = process.argv.slice(2).map((file) => path.resolve(file));
const files =
  named.length > 0
    ? named
    : readdirSync(folder)
        .filter((name) => name.endsWith(".mdx"))
        .map((name) => path.join(folder, name));
// The consent statement too: it is config/site.ts's, and the form, the e-mails and the Privacy Policy show it.
const problems = [...checkLegalContent(files), ...checkConsent()];
if (problems.length === 0) {
  console.log(
    `${files.length} ${files.length === 1 ? "policy" : "policies"} and the consent statement checked: nothing to fix.`,
  );
} else {
  console.error(
    `${problems.join("\n\n")}\n\n${problems.length} problem(s); nothing is published until they are fixed.`,
  );
  process.exitCode = 1;
}
