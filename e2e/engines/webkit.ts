import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Builder, By, Key, type WebDriver } from "selenium-webdriver";
import type { WebKit } from "../../scripts/find-engines";
import { recordedProblems, recordProblems, tapPoint, type Engine, type EnginePage, type Viewport } from "./engine";
import { freePort } from "../../test/support/free-port";
import { until } from "../../test/support/until";

/*
 * WebKit as WebKitGTK ships it: MiniBrowser driven by WebKitWebDriver
 * (WebDriver classic, through selenium-webdriver), on a virtual X display of
 * its own, since MiniBrowser has no headless mode.
 *
 * Two limits of WebDriver classic here, and what covers them:
 * - No script runs before a document's own, so a page's problems are recorded
 *   from its load event on. What the console says while a page loads is read
 *   by consoleWhileLoading(): a MiniBrowser of its own, not under automation,
 *   printing its console (WebKit prints nothing for an automated session,
 *   which is ephemeral).
 * - MiniBrowser's toolbar keeps its window at least 447 px wide: phone-size
 *   checks run at that width (the menu's breakpoint is 640 px).
 */

/** Every process started here that still runs: killed when the test process exits, however it exits. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** A virtual X server on a free display; `stop` ends it (and with it anything drawing on it). */
async function startXvfb(xvfb: string, screen = "1280x1024x24"): Promise<{ display: string; stop(): Promise<void> }> {
  const child = track(
    spawn(xvfb, ["-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp"], {
      stdio: ["ignore", "ignore", "pipe", "pipe"],
    }),
  );
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const display = await new Promise<string>((resolve, reject) => {
    (child.stdio[3] as NodeJS.ReadableStream).once("data", (chunk: Buffer) => resolve(`:${chunk.toString().trim()}`));
    child.once("exit", (code) => reject(new Error(`Xvfb exited with ${code}: ${errors.trim()}`)));
  });
  return {
    display,
    stop: () => stopProcess(child),
  };
}

/** How long a new MiniBrowser session may take to start. */
const sessionStartMs = 30_000;

/** How long one WebDriver command may take: past the page-load and script timeouts the session was given. */
const commandMs = 45_000;

/** `promise`, or an error naming `what` once `ms` have passed without an answer. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`WebKit did not answer ${what} within ${ms / 1000} s.`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ends a process with SIGTERM, then SIGKILL if it has not gone within two seconds. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
  await exited;
  clearTimeout(timer);
}

/** Waits until the WebDriver service answers its status as ready. */
async function untilReady(url: string, driver: ChildProcess): Promise<void> {
  const ready = async () => {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited with ${driver.exitCode}.`);
    try {
      const status = (await (await fetch(`${url}/status`)).json()) as { value?: { ready?: boolean } };
      return status.value?.ready === true;
    } catch {
      return false; // not listening yet
    }
  };
  await until(ready, 10_000, "WebKitWebDriver's answer");
}

const keys = { Enter: Key.ENTER, Escape: Key.ESCAPE, Tab: Key.TAB } as const;

class WebKitPage implements EnginePage {
  constructor(
    private readonly driver: WebDriver,
    readonly viewport: Viewport,
    private readonly javaScript: boolean,
  ) {}

  /** Every command is bounded, so that a hung one fails its test naming itself, not at the test's own timeout. */
  private command<T>(what: string, run: (driver: WebDriver) => Promise<T>): Promise<T> {
    return within(commandMs, what, run(this.driver));
  }

  private async record(): Promise<void> {
    if (this.javaScript)
      await this.command("recording problems", (driver) => driver.executeScript(recordProblems, true));
  }

  async goto(url: string): Promise<void> {
    await this.command(`a load of ${url}`, (driver) => driver.get(url));
    await this.record();
  }

  url(): Promise<string> {
    return this.command("its URL", (driver) => driver.getCurrentUrl());
  }

  async evaluate<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): Promise<Awaited<R>> {
    return this.command("a script", (driver) =>
      driver.executeScript<Awaited<R>>(fn as (...args: unknown[]) => R, ...args),
    );
  }

  /** The driver's own click, once the element is in view (WebKitWebDriver checks it is visible and on top). */
  async click(selector: string): Promise<void> {
    await this.command(`a click on ${selector}`, async (driver) => {
      await driver.executeScript(tapPoint, selector);
      await driver.findElement(By.css(selector)).click();
    });
  }

  async type(selector: string, text: string): Promise<void> {
    await this.command(`typing into ${selector}`, (driver) => driver.findElement(By.css(selector)).sendKeys(text));
  }

  async press(key: "Enter" | "Escape" | "Tab"): Promise<void> {
    await this.command(`a press of ${key}`, (driver) => driver.actions().sendKeys(keys[key]).perform());
  }

  async screenshot(file: string): Promise<void> {
    writeFileSync(file, await this.command("a screenshot", (driver) => driver.takeScreenshot()), "base64");
  }

  /** The current document's problems, recorded from its load on (a document a click led to: from now on). */
  async problems(): Promise<string[]> {
    if (!this.javaScript) return [];
    await this.record();
    return this.command("the recorded problems", (driver) => driver.executeScript<string[]>(recordedProblems));
  }

  async close(): Promise<void> {
    await this.command("a load of about:blank", (driver) => driver.get("about:blank"));
  }
}

/**
 * WebKitWebDriver on a virtual display, and a MiniBrowser session for each
 * JavaScript setting, made when first asked. WebKitWebDriver holds one
 * session at a time, so each setting has a service of its own.
 */
export async function launchWebKit(webkit: WebKit): Promise<Engine> {
  const xvfb = await startXvfb(webkit.xvfb);
  const services: ChildProcess[] = [];

  /** One WebKitWebDriver service and its MiniBrowser session; the service goes if the session does not come. */
  async function startSession(javaScript: boolean): Promise<WebDriver> {
    const port = await freePort();
    const service = track(
      spawn(webkit.driver, [`--port=${port}`], {
        stdio: "ignore",
        env: { ...process.env, DISPLAY: xvfb.display },
      }),
    );
    services.push(service);
    const serviceUrl = `http://127.0.0.1:${port}`;
    try {
      await untilReady(serviceUrl, service);
      return await within(
        sessionStartMs,
        `a MiniBrowser session (JavaScript ${javaScript ? "on" : "off"})`,
        new Builder()
          .usingServer(serviceUrl)
          .withCapabilities({
            browserName: "MiniBrowser",
            pageLoadStrategy: "normal",
            timeouts: { pageLoad: 30_000, script: 30_000, implicit: 0 },
            "webkitgtk:browserOptions": {
              binary: webkit.miniBrowser,
              args: ["--automation", ...(javaScript ? [] : ["--enable-javascript=false"])],
            },
          })
          .build(),
      );
    } catch (error) {
      await stopProcess(service);
      throw error;
    }
  }

  /*
   * On a loaded machine MiniBrowser now and then never answers the new
   * session: a CI run once waited on one until the test's own 120 s ran out,
   * saying nothing. It gets a bounded wait, and one more try.
   */
  async function startSessionRetrying(javaScript: boolean): Promise<WebDriver> {
    try {
      return await startSession(javaScript);
    } catch (error) {
      console.warn(`WebKit: ${(error as Error).message} Starting it once more.`);
      return startSession(javaScript);
    }
  }

  const sessions = new Map<boolean, Promise<WebDriver>>();
  const session = (javaScript: boolean) => {
    if (!sessions.has(javaScript)) sessions.set(javaScript, startSessionRetrying(javaScript));
    return sessions.get(javaScript)!;
  };

  const driver = await session(true);
  const capabilities = await driver.getCapabilities();
  const version = `WebKitGTK ${String(capabilities.get("browserVersion"))}`;

  return {
    name: "WebKit",
    version,
    async open({ viewport, javaScript = true }) {
      const driver = await session(javaScript);
      // The window holds a toolbar: size it so that the page gets the height asked for.
      await driver.manage().window().setRect({ width: viewport.width, height: viewport.height });
      const [width, height] = await driver.executeScript<[number, number]>("return [innerWidth, innerHeight]");
      await driver
        .manage()
        .window()
        .setRect({ width: viewport.width, height: 2 * viewport.height - height });
      return new WebKitPage(driver, { width, height: viewport.height }, javaScript);
    },
    consoleWhileLoading: (url, loaded) => consoleWhileLoading(webkit, url, loaded),
    async close() {
      // A session that does not answer within 5 s goes with its service and display.
      const quit = async (pending: Promise<WebDriver>) => (await pending).quit();
      const timeout = new Promise((resolve) => setTimeout(resolve, 5000).unref());
      await Promise.race([Promise.allSettled([...sessions.values()].map(quit)), timeout]);
      for (const service of services) await stopProcess(service);
      await xvfb.stop();
    },
  };
}

/**
 * MiniBrowser on a display of its own, not automated, with its console
 * written to stdout: it loads `url` until `loaded()` holds, then its display
 * goes away, and it exits, flushing what it printed. The lines that are errors
 * or security messages (CSP) are returned; warnings and logs are not.
 */
async function consoleWhileLoading(webkit: WebKit, url: string, loaded: () => boolean): Promise<string[]> {
  const xvfb = await startXvfb(webkit.xvfb, "1280x800x24");
  // A profile of its own: nothing cached from an earlier run, nothing left behind.
  const home = mkdtempSync(path.join(os.tmpdir(), "minibrowser-"));
  const browser = track(
    spawn(webkit.miniBrowser, ["--enable-write-console-messages-to-stdout=true", url], {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DISPLAY: xvfb.display,
        XDG_CACHE_HOME: path.join(home, "cache"),
        XDG_DATA_HOME: path.join(home, "data"),
        XDG_CONFIG_HOME: path.join(home, "config"),
      },
    }),
  );
  let output = "";
  browser.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  browser.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => browser.once("exit", resolve));
  // Over when the condition holds, or fails with what MiniBrowser printed (a crash, say).
  const waited = until(() => browser.exitCode !== null || loaded(), 20_000).then(
    () => (browser.exitCode === null ? null : `MiniBrowser exited with ${browser.exitCode}`),
    (error: Error) => error.message,
  );
  const failure = await waited;
  await xvfb.stop();
  const timer = setTimeout(() => browser.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
  rmSync(home, { recursive: true, force: true });
  if (failure) throw new Error(`${failure} while it loaded ${url}:\n${output}`);
  return output
    .split("\n")
    .filter((line) => /^CONSOLE (\S+ ERROR|SECURITY )/.test(line))
    .map((line) => line.trim());
}
