import { readdirSync } from "node:fs";
import path from "node:path";
import { readEnv } from "../config/env";
import { machine as chromiumMachine } from "./find-chromium";

/*
 * The browser tests' other engines, Firefox and WebKit, found as Chromium is
 * (find-chromium.ts), from the system's packages: this machine downloads no
 * browser. Firefox is driven over WebDriver BiDi (puppeteer-core); WebKit is
 * WebKitGTK's MiniBrowser driven by WebKitWebDriver (selenium-webdriver), on
 * a virtual X display (Xvfb), since MiniBrowser has no headless mode.
 */

/** What the search asks of the machine; the real one is `machine` below. */
export interface EngineMachine {
  firefoxPath: string | undefined;
  isExecutable(file: string): boolean;
  /** The directories of PATH. */
  pathDirs: readonly string[];
  /** The entries of a directory; none when it does not exist. */
  list(dir: string): string[];
}

export interface WebKit {
  /** WebKitWebDriver, the WebDriver service. */
  driver: string;
  /** WebKitGTK's MiniBrowser, the browser it drives. */
  miniBrowser: string;
  /** The virtual X server MiniBrowser draws on. */
  xvfb: string;
}

export const missingFirefox =
  "Firefox not found: install Debian's firefox-esr package (apt-get install -y firefox-esr), or set FIREFOX_PATH.";
export const missingWebKit =
  "WebKit not found: install Debian's webkit2gtk-driver and xvfb packages (apt-get install -y webkit2gtk-driver xvfb).";

const onPath = (machine: EngineMachine, names: readonly string[]) =>
  names
    .flatMap((name) => machine.pathDirs.map((dir) => path.join(dir, name)))
    .find((file) => machine.isExecutable(file));

/** Firefox's executable, or undefined. A FIREFOX_PATH that is not one is an error, not a miss. */
export function findFirefox(machine: EngineMachine): string | undefined {
  if (machine.firefoxPath) {
    if (machine.isExecutable(machine.firefoxPath)) return machine.firefoxPath;
    throw new Error(`FIREFOX_PATH is ${machine.firefoxPath}, which is not an executable browser.`);
  }
  return onPath(machine, ["firefox-esr", "firefox"]);
}

/**
 * MiniBrowser lives with the WebKitGTK library: /usr/lib/<triplet>/webkit2gtk-4.1/
 * on Debian and Ubuntu, /usr/libexec/webkit2gtk-4.1/ on Fedora (4.0: the older API).
 */
function findMiniBrowser(machine: EngineMachine): string | undefined {
  const apis = ["webkit2gtk-4.1", "webkit2gtk-4.0"];
  const libs = ["/usr/lib", ...machine.list("/usr/lib").map((entry) => path.join("/usr/lib", entry)), "/usr/libexec"];
  return apis
    .flatMap((api) => libs.map((dir) => path.join(dir, api, "MiniBrowser")))
    .find((file) => machine.isExecutable(file));
}

/** WebKitWebDriver, MiniBrowser and Xvfb, or undefined when any is missing. */
export function findWebKit(machine: EngineMachine): WebKit | undefined {
  const driver = onPath(machine, ["WebKitWebDriver"]);
  const miniBrowser = findMiniBrowser(machine);
  const xvfb = onPath(machine, ["Xvfb"]);
  return driver && miniBrowser && xvfb ? { driver, miniBrowser, xvfb } : undefined;
}

const env = readEnv();

export const machine: EngineMachine = {
  firefoxPath: env.FIREFOX_PATH,
  isExecutable: chromiumMachine.isExecutable,
  pathDirs: chromiumMachine.pathDirs,
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
};
