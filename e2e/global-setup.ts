import { readEnv } from "../config/env";
import { findChromium, machine, NoBrowserError } from "../scripts/find-chromium";
import {
  findFirefox,
  findWebKit,
  machine as engineMachine,
  missingFirefox,
  missingWebKit,
} from "../scripts/find-engines";

/**
 * Finds (or installs) the browser once, before any test file runs, and hands
 * it to every worker as CHROME_PATH; a machine without one stops here, in one
 * line. Firefox and WebKit are looked for too: a laptop without them is told,
 * in a line naming the package, that their tests are skipped (engines.test.ts);
 * under CI, where `.ci/run` installs them, their absence stops the run.
 */
export default function globalSetup(): void {
  try {
    process.env.CHROME_PATH = findChromium(machine);
  } catch (error) {
    if (!(error instanceof NoBrowserError)) throw error;
    console.error(`\n${error.message}`);
    process.exit(1);
  }
  const missing = [
    findFirefox(engineMachine) ? [] : [missingFirefox],
    findWebKit(engineMachine) ? [] : [missingWebKit],
  ].flat();
  if (missing.length === 0) return;
  if (readEnv().CI) {
    console.error(`\n${missing.join("\n")}\nCI runs the browser tests in every engine.`);
    process.exit(1);
  }
  console.warn(`\n${missing.map((line) => `${line} Its browser tests are skipped.`).join("\n")}`);
}
