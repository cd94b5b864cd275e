import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import chromiumSettings from "../scripts/chromium.json";
import { startSite, type Site } from "../test/support/site";
import { patience } from "../test/support/patience";
import { until } from "../test/support/until";
import { findChromium, machine } from "../scripts/find-chromium";

const root = path.resolve(__dirname, "..");

export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 375, height: 812 },
} as const;
export type ViewportName = keyof typeof viewports;

export const routes = ["/", "/privacy-policy/", "/terms-of-service/"] as const;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(machine), args: chromiumSettings.flags });
}

const { slowPhone } = chromiumSettings;

/** How openPage opens a page: Playwright's context options, and these. */
export interface OpenOptions extends Omit<BrowserContextOptions, "viewport"> {
  /** A viewport by name (desktop, the default; phone) or by size. */
  viewport?: ViewportName | { width: number; height: number };
  /**
   * Lighthouse's slow phone: 150 ms RTT, 1.6 Mbps, CPU x4, applied by
   * scripts/chromium.json's DevTools protocol commands, with touch and its
   * viewport (unless one is named).
   */
  slowPhone?: boolean;
  /** What the page needs before the first byte: init scripts, routes, listeners. */
  before?(page: Page): Promise<unknown> | void;
  /** When to return: at the load event, as a visitor acts (the default), or earlier. */
  waitUntil?: "load" | "domcontentloaded" | "commit";
}

/**
 * The one way the Chromium tests open a page: in a context of its own
 * (Playwright's browser.newPage), then at `url` (null: blank, for a test that
 * wants goto's response). Its close() resolves once the context has closed
 * too. A context closed from the page's "close" event instead could still be
 * closing when the file's browser closes, right after its last test; that
 * close then fails, and Jest charges the failure to the beforeAll that
 * launched the browser, that is to every test of the file
 * (e2e/support.test.ts).
 */
export async function openPage(browser: Browser, url: string | null, options: OpenOptions = {}): Promise<Page> {
  const { viewport, slowPhone: slow = false, before, waitUntil = "load", ...context } = options;
  const size = typeof viewport === "string" ? viewports[viewport] : viewport;
  const page = await browser.newPage({
    ...(slow ? { isMobile: true, hasTouch: true } : {}),
    ...context,
    viewport: size ?? (slow ? slowPhone.viewport : viewports.desktop),
  });
  // Playwright's 30 s for an action or a wait, stretched where the run shares its CPU (test/support/patience.ts).
  page.setDefaultTimeout(patience(30_000));
  if (slow) {
    const cdp = await page.context().newCDPSession(page);
    // The commands are data: CDPSession's types want one known method at a time.
    for (const [method, params] of slowPhone.commands) await cdp.send(method as "Network.enable", params as never);
  }
  await before?.(page);
  if (url !== null) await page.goto(url, { waitUntil });
  return page;
}

/**
 * Records the page's Content-Security-Policy violations from its first
 * script on (read them with cspViolations): needs JavaScript on.
 */
export async function recordCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const violations: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = violations;
    document.addEventListener("securitypolicyviolation", (event) =>
      violations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`),
    );
  });
}

export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

const axePath = createRequire(__filename).resolve("axe-core/axe.min.js");

/**
 * What axe-core finds wrong on the page. axe is injected as an inline
 * script, which the page's own policy rightly refuses: open the page in a
 * context with `bypassCSP: true`.
 */
export async function axeViolations(page: Page): Promise<{ id: string; help: string; targets: string[] }[]> {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
          ) => Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((violation) => ({
      id: violation.id,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" ")),
    }));
  });
}

/** Whether Gatsby has hydrated the page (its own performance mark). */
export function hydrated(page: Page): Promise<boolean> {
  return page.evaluate(() => performance.getEntriesByName("onInitialClientRender").length > 0);
}

/** Waits until Gatsby has hydrated the page: for checks of what JavaScript adds. */
export async function whenHydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => performance.getEntriesByName("onInitialClientRender").length > 0);
}

/**
 * What the browser tells assistive technology about the element `selector`
 * names (its accessibility tree, through the DevTools protocol): works with
 * JavaScript off, and for a <summary>, which Playwright's role queries do not see.
 */
export async function accessibleState(page: Page, selector: string) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send("DOM.getDocument", { depth: 0 });
    const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
    const { nodes } = await cdp.send("Accessibility.getPartialAXTree", { nodeId, fetchRelatives: false });
    const node = nodes[0]!;
    return {
      role: node.role?.value as string,
      name: node.name?.value as string,
      expanded: node.properties?.find((property) => property.name === "expanded")?.value.value as boolean | undefined,
    };
  } finally {
    await cdp.detach();
  }
}

/**
 * One server and one browser for a test file: started before its tests,
 * stopped after them. Read `suite.site` and `suite.browser` inside tests.
 */
export function setUpSuite(): { site: Site; browser: Browser } {
  const suite = {} as { site: Site; browser: Browser };
  beforeAll(async () => {
    [suite.site, suite.browser] = await Promise.all([startSite(), launchBrowser()]);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.site?.stop();
  });
  return suite;
}

/**
 * Signs `email` up through the form of the landing page open in `page`, as a
 * visitor does, and waits for the answer: the form's welcome with JavaScript
 * on, the server's own page after the native post with it off.
 */
export async function signUpOnPage(page: Page, email: string, javaScriptEnabled: boolean): Promise<void> {
  const form = page.locator("#waitlist");
  await form.getByLabel("Email address").fill(email);
  await form.locator('button[type="submit"]').click();
  if (javaScriptEnabled) await form.getByRole("status").getByText("Welcome to the waitlist!").waitFor();
  else await page.getByRole("heading", { name: "You're on the list!" }).waitFor();
}

/** Signs `email` up through the landing page's form, with or without JavaScript, on a phone. */
export async function signUpThroughForm(
  suite: { site: Site; browser: Browser },
  email: string,
  javaScriptEnabled: boolean,
): Promise<void> {
  const page = await openPage(suite.browser, `${suite.site.url}/`, { javaScriptEnabled, viewport: "phone" });
  await signUpOnPage(page, email, javaScriptEnabled);
  await page.close();
}

/**
 * `url` on a phone, in a context of its own that closes with the page.
 * `errors` keeps what the browser refused under the page's policy (an inline
 * style, say) as the console reports it, with JavaScript on or off.
 */
export async function openOnPhone(
  browser: Browser,
  url: string,
  options: { javaScriptEnabled: boolean; bypassCSP?: boolean },
): Promise<{ page: Page; errors: string[] }> {
  const errors: string[] = [];
  const before = async (page: Page) => {
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy|Refused to/.test(message.text())) {
        errors.push(message.text());
      }
    });
    if (options.javaScriptEnabled) await recordCspViolations(page);
  };
  const page = await openPage(browser, url, { viewport: "phone", ...options, before });
  return { page, errors };
}

/**
 * The files a visit to `route` asks this site for, as the build names them:
 * the page, and the scripts its paint-first loader adds (after-build/paint-first.ts).
 * Nothing else: the data Gatsby's loader needs comes in the page
 * (after-build/inline-data.ts), and no page its links lead to is loaded
 * ahead of a click (gatsby-browser.tsx).
 */
export function visitFiles(route: (typeof routes)[number]): string[] {
  const html = readFileSync(path.join(__dirname, "..", "public", route, "index.html"), "utf8");
  const scripts = /<script id="paint-first">.*\)\((\[[^\]]*\])\);<\/script>/.exec(html)?.[1];
  if (!scripts) throw new Error(`public${route}index.html has no paint-first loader: run \`npm run build\` again.`);
  return [route, ...(JSON.parse(scripts) as string[])];
}

/**
 * Run in the page once its links are in view: resolves past the moment
 * Gatsby would load the pages they lead to, were its prefetching on (its
 * loader queues them and loads them three seconds on, when the page is next
 * idle), on the page's own clock. A check that nothing more is fetched waits
 * for this: no condition in the page says that nothing is coming.
 */
export function pastGatsbyPrefetch(): Promise<true> {
  const idle = window.requestIdleCallback ?? ((callback: () => void) => setTimeout(callback, 0));
  // Two frames: the links' IntersectionObserver has reported them by then.
  return new Promise((resolve) =>
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => idle(() => resolve(true)), 3000))),
  );
}

/** One change of a watched element: when (the page's clock, ms) and the text it had then. */
export interface TextChange {
  t: number;
  text: string;
}

/**
 * Run in the page: records, in the page's own clock, each change of the text
 * of the element `selector` names; read them with textChanges.
 */
export function recordTextChanges(selector: string): void {
  const node = document.querySelector(selector)!;
  const log: TextChange[] = [];
  (window as unknown as { textChanges: TextChange[] }).textChanges = log;
  new MutationObserver(() => log.push({ t: performance.now(), text: node.textContent ?? "" })).observe(node, {
    childList: true,
    characterData: true,
    subtree: true,
  });
}

/** Run in the page: what recordTextChanges has kept. */
export function textChanges(): TextChange[] {
  return (window as unknown as { textChanges: TextChange[] }).textChanges;
}

/** How long, in ms, `text` showed before the element went empty. */
export function shownFor(log: TextChange[], text: string): number {
  const appeared = log.find((entry) => entry.text === text)!.t;
  return log.find((entry) => entry.t > appeared && entry.text === "")!.t - appeared;
}

/** A page of any engine: Playwright's, or one of e2e/engines/. */
interface Evaluates {
  evaluate<R, A>(fn: (arg: A) => R, arg: A): Promise<R>;
  evaluate<R>(fn: () => R): Promise<R>;
}

/**
 * Waits until the page has stopped scrolling (smooth scrolling included):
 * scrollY unchanged for 12 polls in a row, 20 ms apart, and for `quietMs`.
 * An engine that draws few frames (WebKit on a virtual display: about ten a
 * second, and its first a third of a second after a click) needs the longer
 * quiet. Polled from here, not with the page's own timers, so it works with
 * JavaScript off too.
 */
export async function settledScroll(page: Evaluates, quietMs = 0): Promise<number> {
  let last = -1;
  let still = 0;
  let since = Date.now();
  const settled = async () => {
    const y = await page.evaluate(() => window.scrollY);
    if (y === last) still++;
    else [still, since] = [0, Date.now()];
    last = y;
    return still >= 12 && Date.now() - since >= quietMs;
  };
  await until(settled, 10_000 + quietMs).catch(() => {
    throw new Error(`The page was still scrolling after ${10_000 + quietMs} ms, at ${last} px.`);
  });
  return last;
}

/** Where a section sits after a scroll: its top in the viewport, and whether the page could go further. */
export async function sectionPosition(page: Evaluates, id: string, quietMs = 0) {
  await settledScroll(page, quietMs);
  return page.evaluate((sectionId) => {
    const top = document.getElementById(sectionId)!.getBoundingClientRect().top;
    const atEnd = Math.abs(window.scrollY + window.innerHeight - document.documentElement.scrollHeight) <= 1;
    return { top, atEnd };
  }, id);
}

/**
 * The spec's 80 px offset, ±2 px. Where the page ends before the section can
 * reach it (the waitlist on a tall screen), the browser scrolls as far as the
 * page goes: then the page is at its end and the section sits lower, never
 * under the header.
 */
export function expectAtOffset(position: { top: number; atEnd: boolean }): void {
  if (position.atEnd) expect(position.top).toBeGreaterThanOrEqual(78);
  else expect(Math.abs(position.top - 80)).toBeLessThanOrEqual(2);
}

/** Where a route's screenshot goes: Chromium's under its route's name, another engine's under its own first. */
export function screenshotPath(route: string, viewport: ViewportName, engine?: string): string {
  const dir = path.join(root, "artifacts", "screenshots");
  mkdirSync(dir, { recursive: true });
  const name = route === "/" ? "landing" : route.replaceAll("/", "");
  return path.join(dir, `${engine ? `${engine.toLowerCase()}-` : ""}${name}-${viewport}.png`);
}
