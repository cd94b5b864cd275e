import { findChromium, machine, NoBrowserError } from "../scripts/find-chromium";

/**
 * Finds (or installs) the browser once, before any test file runs, and hands
 * it to every worker as CHROME_PATH; a machine without one stops here, in one line.
 */
export default function globalSetup(): void {
  try {
    process.env.CHROME_PATH = findChromium(machine);
  } catch (error) {
    if (!(error instanceof NoBrowserError)) throw error;
    console.error(`\n${error.message}`);
    process.exit(1);
  }
}
