import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { readEnv } from "../config/env";

/*
 * The Chromium the browser tests, the bench and make-images drive, found in
 * this order: CHROME_PATH; the system's Chromium or Chrome; Playwright's own
 * browser cache; then Playwright's Chromium, installed where the network
 * allows. Only when all of them fail does it stop, with one line.
 */

/** What the search asks of the machine; the real one is `machine` below. */
export interface Machine {
  chromePath: string | undefined;
  isExecutable(file: string): boolean;
  /** The directories of PATH. */
  pathDirs: readonly string[];
  /** Where Playwright keeps its own Chromium (it may not be there). */
  playwrightChromium(): string;
  /** Runs `playwright-core install chromium`; false when it fails (no network to Playwright's CDN). */
  installPlaywrightChromium(): boolean;
}

const systemNames = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];
const systemApps = [
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

export const noBrowserLine =
  "No Chromium or Chrome found, and Playwright's could not be installed: install Debian's chromium package (apt-get install -y chromium), or set CHROME_PATH.";

export class NoBrowserError extends Error {}

export function findChromium(machine: Machine): string {
  if (machine.chromePath) {
    if (machine.isExecutable(machine.chromePath)) return machine.chromePath;
    throw new NoBrowserError(`CHROME_PATH is ${machine.chromePath}, which is not an executable browser.`);
  }
  const system = [
    ...systemNames.flatMap((name) => machine.pathDirs.map((dir) => path.join(dir, name))),
    ...systemApps,
  ].find((file) => machine.isExecutable(file));
  if (system) return system;
  if (machine.isExecutable(machine.playwrightChromium())) return machine.playwrightChromium();
  if (machine.installPlaywrightChromium() && machine.isExecutable(machine.playwrightChromium())) {
    return machine.playwrightChromium();
  }
  throw new NoBrowserError(noBrowserLine);
}

const env = readEnv();

export const machine: Machine = {
  chromePath: env.CHROME_PATH,
  isExecutable(file) {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  pathDirs: (env.PATH ?? "").split(path.delimiter).filter(Boolean),
  playwrightChromium: () => chromium.executablePath(),
  installPlaywrightChromium() {
    try {
      execFileSync(
        process.execPath,
        [path.join(path.dirname(require.resolve("playwright-core/package.json")), "cli.js"), "install", "chromium"],
        {
          stdio: "inherit",
        },
      );
      return true;
    } catch {
      return false;
    }
  },
};
