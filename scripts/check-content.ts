// npm run check:content: the content check of content/legal and of the consent statement, for legal staff, printed
// as plain text (what to fix, and the lines to paste as they are), not inside a test runner's diff. Exits 1 on any
// problem; warns, and fails nothing, on a claimed date past. With --fix it first writes what it can: a changed
// policy's new entry (its summary left to write) and fingerprint, a new wording's version and fingerprint. On GitHub
// Actions it also writes the job's summary.
import { appendFileSync } from "node:fs";
import { loadOrExplain } from "./legal-content/load";
import { stepSummary } from "./legal-content/summary";

/**
 * The check, from `args`; `load` loads what it runs, with config/ (a test hands it a broken file). Returns the exit
 * code.
 */
export async function main(
  args: readonly string[],
  load: () => Promise<{ checkContent: (args: readonly string[]) => number }> = () => import("./legal-content/run"),
): Promise<number> {
  // Loaded here, not imported above: a slip in config/site.ts would stop this script before it could say where.
  const loaded = await loadOrExplain(load);
  if ("loaded" in loaded) return loaded.loaded.checkContent(args);
  console.error(`${loaded.problem}\n\n1 problem(s); nothing is published until it is fixed.`);
  // config/env.ts, the one reader of the environment, cannot load while config/site.ts does not: it imports it.
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) appendFileSync(summary, stepSummary([loaded.problem], ""));
  return 1;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
