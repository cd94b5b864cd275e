import {
  accessibleState,
  axeViolations,
  cspViolations,
  openPage,
  recordCspViolations,
  routes,
  screenshotPath,
  viewports,
  type ViewportName,
  setUpSuite,
  settledScroll,
  pastGatsbyPrefetch,
  visitFiles,
  whenHydrated,
} from "./support";
import { patience } from "../test/support/patience";

jest.setTimeout(patience(120_000));

const viewportNames = Object.keys(viewports) as ViewportName[];

const suite = setUpSuite();

/**
 * Opens a route and records console errors, page errors, requests to other
 * origins and Content-Security-Policy violations. Returns at `load`, as a
 * visitor acts.
 */
async function visit(route: string, viewport: ViewportName, { bypassCSP = false }: { bypassCSP?: boolean } = {}) {
  const page = await openPage(suite.browser, null, { viewport, bypassCSP });
  await recordCspViolations(page);
  const problems: string[] = [];
  const asked: string[] = [];
  const origin = new URL(suite.site.url).origin;
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol !== "data:" && url.origin !== origin) problems.push(`request to ${request.url()}`);
    if (url.origin === origin) asked.push(url.pathname);
  });
  const response = await page.goto(`${suite.site.url}${route}`);
  return { page, problems, asked, response };
}

const everyPage = routes.flatMap((route) => viewportNames.map((viewport) => [route, viewport] as const));

describe.each(everyPage)("%s at %s size", (route, viewport) => {
  it("asks for the page and its scripts only, from this site, even once every link is in view", async () => {
    const { page, problems, asked, response } = await visit(route, viewport);
    expect(response?.status()).toBe(200);
    await whenHydrated(page);
    // Every link in view, the policies' beside the form on /: Gatsby would load the pages they lead to, three seconds on.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.evaluate(pastGatsbyPrefetch);
    // No page-data.json, app-data.json or static query: the page carries its data. Each request is billed on Netlify.
    expect([...asked].sort()).toEqual(visitFiles(route).sort());
    if (route === "/") expect(asked).toEqual(["/", expect.stringMatching(/^\/app-[0-9a-f]+\.js$/)]);
    expect(problems.filter((problem) => problem.startsWith("request to "))).toEqual([]);
    await page.close();
  });

  it("comes alive with no console error or CSP violation, and is saved as a screenshot", async () => {
    // As a visitor does: acts from the load event, then once the page is alive.
    const { page, problems, response } = await visit(route, viewport);
    expect(response?.status()).toBe(200);
    await whenHydrated(page);
    // Scroll through, so lazily loaded parts and hover-free layout shifts show up too.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    // Waits on what the scroll may start, not on a clock: the scroll itself, then every image it reached.
    await settledScroll(page);
    await page.waitForFunction(() => Array.from(document.images).every((image) => image.complete));
    await page.evaluate(() => window.scrollTo(0, 0));
    // Nothing scrolls sideways: a phone would pan.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
    await page.screenshot({ path: screenshotPath(route, viewport), fullPage: true });
    expect(problems).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(response?.headers()["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'self' 'sha256-/);
    await page.close();
  });

  it("adds its bundles only after its first paint, downloads each once, then comes alive", async () => {
    // When each <script src> joins the document, in the page's own clock.
    const recordScripts = () => {
      const added: number[] = [];
      Object.assign(window, { scriptsAdded: added });
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof HTMLScriptElement && node.src) added.push(performance.now());
      }).observe(document, { childList: true, subtree: true });
    };
    const page = await openPage(suite.browser, `${suite.site.url}${route}`, {
      viewport,
      before: (page) => page.addInitScript(recordScripts),
    });
    await whenHydrated(page);
    // The app's one script, and on a policy its own chunks beside it (gatsby-node.ts).
    const scripts = visitFiles(route).slice(1);
    const timing = await page.evaluate(
      (scripts) => ({
        firstContentfulPaint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
        scriptsAdded: (window as unknown as { scriptsAdded: number[] }).scriptsAdded,
        bundles: performance
          .getEntriesByType("resource")
          .filter((entry) => entry.name.endsWith(".js"))
          .map((entry) => ({
            path: new URL(entry.name).pathname,
            by: (entry as PerformanceResourceTiming).initiatorType,
          }))
          .filter((entry) => scripts.includes(entry.path)),
      }),
      scripts,
    );
    expect(timing.firstContentfulPaint).toBeGreaterThan(0);
    expect(timing.scriptsAdded).toHaveLength(scripts.length);
    expect(Math.min(...timing.scriptsAdded)).toBeGreaterThanOrEqual(timing.firstContentfulPaint);
    // Each fetched once, by the script the loader added: webpack finds the page's chunk already there.
    expect(timing.bundles.map((bundle) => bundle.path).sort()).toEqual([...scripts].sort());
    expect(timing.bundles.filter((bundle) => bundle.by !== "script")).toEqual([]);
    await page.close();
  });

  it("has no accessibility violations (axe-core)", async () => {
    const { page } = await visit(route, viewport, { bypassCSP: true });
    const violations = await axeViolations(page);
    expect(violations).toEqual([]);
    await page.close();
  });

  it("shows a visible focus ring on every element the keyboard reaches", async () => {
    const { page } = await visit(route, viewport);
    const seen: string[] = [];
    const unringed: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (!element || element === document.body) return null;
        const style = getComputedStyle(element);
        const ring =
          (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2) || style.boxShadow !== "none";
        const label = `${element.tagName.toLowerCase()} "${(element.textContent || element.getAttribute("aria-label") || element.getAttribute("name") || "").trim().slice(0, 30)}"`;
        return { label, ring, visible: element.getBoundingClientRect().width > 0 };
      });
      if (!focused) break;
      if (seen.includes(focused.label)) break;
      seen.push(focused.label);
      if (!focused.ring || !focused.visible) unringed.push(focused.label);
    }
    expect(seen.length).toBeGreaterThan(3);
    expect(unringed).toEqual([]);
    await page.close();
  });
});

describe("the keyboard alone", () => {
  it("reaches the form and submits it with Enter", async () => {
    const { page } = await visit("/", "desktop");
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab");
      if (await page.evaluate(() => document.activeElement?.id === "waitlist-email")) break;
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("waitlist-email");
    const email = `keyboard.${Date.now()}@example.com`;
    await page.keyboard.type(email);
    await page.keyboard.press("Enter");
    await page
      .locator("#waitlist")
      .getByText("Welcome to the waitlist! Check your email for a confirmation message.")
      .waitFor();
    expect(await suite.site.rows()).toContainEqual({ email, source: "start" });
    // The form submits under the production CSP without a violation.
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });

  it("opens and closes the mobile menu", async () => {
    const { page } = await visit("/", "phone");
    await whenHydrated(page);
    const toggle = "header details > summary";
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press("Tab");
      if (await page.evaluate(() => document.activeElement?.tagName === "SUMMARY")) break;
    }
    expect((await accessibleState(page, toggle)).expanded).toBe(false);
    await page.keyboard.press("Enter");
    expect((await accessibleState(page, toggle)).expanded).toBe(true);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Features");
    await page.keyboard.press("Escape");
    expect((await accessibleState(page, toggle)).expanded).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("SUMMARY");
    await page.keyboard.press("Space");
    expect((await accessibleState(page, toggle)).expanded).toBe(true);
    await page.keyboard.press("Space");
    expect((await accessibleState(page, toggle)).expanded).toBe(false);
    await page.close();
  });
});

describe("an unknown path", () => {
  it.each(viewportNames)("answers 404 with the site's 404 page and a link home (%s)", async (viewport) => {
    const page = await openPage(suite.browser, null, { viewport });
    const response = await page.goto(`${suite.site.url}/no-such-page/`);
    expect(response?.status()).toBe(404);
    await page.getByRole("heading", { level: 1, name: "This page took a different route" }).waitFor();
    expect(await page.getByRole("main").getByRole("link", { name: "Back to Home" }).getAttribute("href")).toBe("/");
    await page.screenshot({ path: screenshotPath("/404/", viewport), fullPage: true });
    await page.close();
  });
});
