import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { recordedProblems, recordProblems, tapPoint, type Engine, type EnginePage, type Viewport } from "./engine";

/*
 * Firefox through puppeteer-core over WebDriver BiDi, headless. Puppeteer
 * hands Firefox's own console messages over (its CSP reports arrive as page
 * errors), and a script added before each document's own records the
 * violations as the page sees them, so nothing from the first byte on is
 * missed, with JavaScript off too.
 */

class FirefoxPage implements EnginePage {
  private readonly logged: string[] = [];

  constructor(
    private readonly page: Page,
    readonly viewport: Viewport,
  ) {
    page.on("console", (message) => {
      if (message.type() === "error") this.logged.push(`console.error: ${message.text()}`);
    });
    page.on("pageerror", (error) => this.logged.push(`page error: ${(error as Error).message ?? String(error)}`));
  }

  async goto(url: string): Promise<void> {
    await this.page.goto(url, { waitUntil: "load" });
  }

  async url(): Promise<string> {
    return this.page.url();
  }

  async evaluate<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): Promise<Awaited<R>> {
    return (await this.page.evaluate(fn as (...args: unknown[]) => R, ...args)) as Awaited<R>;
  }

  /**
   * A mouse click at the element's centre. Not ElementHandle.click(): its
   * helper scripts run in a sandbox that takes Firefox's BiDi agent down when
   * the page's JavaScript is off.
   */
  async click(selector: string): Promise<void> {
    const { x, y } = await this.page.evaluate(tapPoint, selector);
    await this.page.mouse.click(x, y);
  }

  async type(selector: string, text: string): Promise<void> {
    await this.page.type(selector, text);
  }

  async press(key: "Enter" | "Escape" | "Tab"): Promise<void> {
    await this.page.keyboard.press(key);
  }

  async screenshot(file: string): Promise<void> {
    await this.page.screenshot({ path: file as `${string}.png` });
  }

  /** Everything Firefox logged while this page was open (a CSP violation shows twice: its message and its event). */
  async problems(): Promise<string[]> {
    const inPage = await this.page.evaluate(recordedProblems).catch(() => []);
    return [...this.logged, ...inPage];
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

const quiet = {
  "app.update.enabled": false,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "datareporting.policy.dataSubmissionEnabled": false,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "toolkit.telemetry.enabled": false,
};

/**
 * Firefox at `executablePath`, headless, with no network of its own (no
 * updates, telemetry or remote settings). Firefox's BiDi cannot turn scripts
 * off for one page (emulation.setScriptingEnabled is not in ESR 153), so pages
 * without JavaScript get a second Firefox, started when first asked, whose
 * preferences turn it off.
 */
export async function launchFirefox(executablePath: string): Promise<Engine> {
  const browsers = new Map<boolean, Promise<Browser>>();
  const browser = (javaScript: boolean) => {
    if (!browsers.has(javaScript)) {
      browsers.set(
        javaScript,
        puppeteer.launch({
          browser: "firefox",
          executablePath,
          headless: true,
          extraPrefsFirefox: { ...quiet, "javascript.enabled": javaScript },
        }),
      );
    }
    return browsers.get(javaScript)!;
  };
  const version = (await (await browser(true)).version()).replace(/^firefox\//, "Firefox ");

  async function open({ viewport, javaScript = true }: { viewport: Viewport; javaScript?: boolean }) {
    const page = await (await browser(javaScript)).newPage();
    await page.setViewport(viewport);
    if (javaScript) await page.evaluateOnNewDocument(recordProblems, false);
    return new FirefoxPage(page, viewport);
  }

  return {
    name: "Firefox",
    version,
    open,
    async close() {
      for (const pending of browsers.values()) await (await pending).close().catch(() => {});
    },
  };
}
