import type { Page } from "playwright-core";
import {
  expectAtOffset,
  openPage,
  sectionPosition,
  settledScroll,
  setUpSuite,
  whenHydrated,
  type ViewportName,
} from "./support";

jest.setTimeout(60_000);

const verification = 'meta[name="tiktok-developers-site-verification"]';
const legalRoutes = ["/privacy-policy/", "/terms-of-service/"] as const;

const suite = setUpSuite();

/** Opens a route and acts as soon as `load` fires, as a visitor would: hydration may still be under way. */
const open = (route: string, viewport: ViewportName = "desktop") =>
  openPage(suite.browser, `${suite.site.url}${route}`, { viewport });

interface JoinTimes {
  /** The tap on Join the Waitlist. */
  click: number;
  /** The landing page took over the document. */
  shown: number;
  /** A 200 ms timer of the test's own, set when the page showed, fired: the yardstick of a busy page's clock. */
  yardstick: number;
  /** The page asked to scroll to #waitlist: its scrollIntoView, or a window's scrollTo, scroll or scrollBy off the top. */
  requested: number;
  /** The first scroll event: the scroll painted. */
  scroll: number;
  /** The id of what has focus once the page is at rest: the section, for keyboard and screen-reader users. */
  focused?: string;
}

/**
 * Taps a legal page's Join the Waitlist and waits for the landing page to come to rest with #waitlist 80 px below
 * the top. Returns the times of JoinTimes, in the page's own clock. `busyMs`: how long the main thread stays busy
 * right after the landing page shows, as a busy phone's does, before React's passive effects run.
 */
async function joinTheWaitlist(page: Page, { busyMs = 0 } = {}): Promise<JoinTimes> {
  await page.evaluate((busyMs) => {
    const times = { click: 0, shown: 0, yardstick: 0, requested: 0, scroll: 0 };
    Object.assign(window, { times });
    // The router's own scroll to the top, as the page shows, is not the one: only a scroll towards the section counts.
    const record = <T extends object>(
      target: T,
      name: keyof T,
      towards: (self: unknown, args: unknown[]) => boolean,
    ) => {
      const original = target[name] as (...args: unknown[]) => unknown;
      Object.assign(target, {
        [name](this: unknown, ...args: unknown[]) {
          if (times.shown && !times.requested && towards(this, args)) times.requested = performance.now();
          return original.apply(this, args);
        },
      });
    };
    record(Element.prototype, "scrollIntoView", (self) => (self as Element).id === "waitlist");
    const offTheTop = (_self: unknown, [first, second]: unknown[]) =>
      Boolean(typeof first === "object" && first !== null ? (first as ScrollToOptions).top : second);
    for (const name of ["scrollTo", "scroll", "scrollBy"] as const) record(window, name, offTheTop);
    document.addEventListener("click", () => (times.click = performance.now()), true);
    new MutationObserver(() => {
      if (times.shown || !document.getElementById("waitlist")) return;
      times.shown = performance.now();
      setTimeout(() => (times.yardstick = performance.now()), 200);
      const busyUntil = times.shown + busyMs;
      while (performance.now() < busyUntil);
    }).observe(document.body, { childList: true, subtree: true });
    addEventListener("scroll", () => times.shown && !times.scroll && scrollY > 0 && (times.scroll = performance.now()));
  }, busyMs);
  await page.getByRole("complementary").getByRole("link", { name: "Join the Waitlist" }).click();
  await page.waitForURL(`${suite.site.url}/#waitlist`);
  // The scroll comes 200 ms after the page shows: on a loaded machine, later than a still page looks settled.
  await page.waitForFunction(() => {
    const { times } = window as unknown as { times: JoinTimes };
    return times.scroll > 0 && times.yardstick > 0;
  });
  expectAtOffset(await sectionPosition(page, "waitlist"));
  return page.evaluate(() => ({
    ...(window as unknown as { times: JoinTimes }).times,
    focused: document.activeElement?.id,
  }));
}

describe("the verification meta tag", () => {
  it.each(legalRoutes)("is in the prerendered HTML of %s, and not of /", async (route) => {
    const legal = await (await fetch(`${suite.site.url}${route}`)).text();
    expect(legal).toMatch(/<meta[^>]+name="tiktok-developers-site-verification"[^>]+content="[^"]+"/);
    const home = await (await fetch(`${suite.site.url}/`)).text();
    expect(home).not.toContain("tiktok-developers-site-verification");
  });

  it.each(legalRoutes)("is gone from the document after a client-side Back to Home on %s", async (route) => {
    const page = await open(route);
    await whenHydrated(page);
    expect(await page.locator(verification).count()).toBe(1);
    await page.getByRole("link", { name: /Back to Home/ }).click();
    await page.waitForURL(`${suite.site.url}/`);
    await page.waitForFunction((selector) => document.querySelector(selector) === null, verification, {
      timeout: 5000,
    });
    expect(await page.locator(verification).count()).toBe(0);
    await page.close();
  });
});

describe("head tags on client-side navigation", () => {
  it("follow the visitor from / to the Privacy Policy and back", async () => {
    const page = await open("/");
    await whenHydrated(page);
    const head = () =>
      page.evaluate(() => ({
        title: document.title,
        titles: document.querySelectorAll("title").length,
        canonical: [...document.querySelectorAll('link[rel="canonical"]')].map((link) => link.getAttribute("href")),
        description: document.querySelectorAll('meta[name="description"]').length,
      }));
    await page.getByRole("contentinfo").getByRole("link", { name: "Privacy Policy" }).click();
    await page.waitForFunction(() => document.title === "Privacy Policy | Tandem", null, { timeout: 5000 });
    expect(await head()).toEqual({
      title: "Privacy Policy | Tandem",
      titles: 1,
      canonical: [expect.stringMatching(/\/privacy-policy\/$/)],
      description: 1,
    });
    await page.getByRole("link", { name: /Back to Home/ }).click();
    await page.waitForFunction(() => document.title === "Tandem | grow. together.", null, { timeout: 5000 });
    expect(await head()).toEqual({
      title: "Tandem | grow. together.",
      titles: 1,
      canonical: [expect.stringMatching(/[^/]\/$/)],
      description: 1,
    });
    await page.close();
  });
});

describe.each(["desktop", "phone"] as const)("the legal pages (%s)", (viewport) => {
  it.each(legalRoutes)("Join the Waitlist on %s lands on / with #waitlist 80 px below the top", async (route) => {
    const page = await open(route, viewport);
    await page.getByRole("complementary").getByRole("link", { name: "Join the Waitlist" }).click();
    await page.waitForURL(`${suite.site.url}/#waitlist`);
    await page.waitForFunction(() => window.scrollY > 0, null, { timeout: 5000 });
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.close();
  });

  it.each(legalRoutes)(
    "once hydrated, Join the Waitlist on %s navigates client-side and scrolls 200 ms after the landing page shows",
    async (route) => {
      const page = await open(route, viewport);
      await whenHydrated(page);
      const times = await joinTheWaitlist(page);
      // The same document: a client-side navigation, not a page load.
      expect(times.click).toBeGreaterThan(0);
      expect(times.scroll - times.shown).toBeGreaterThanOrEqual(195);
      // Counted from the page showing, not from anything later. On a loaded machine every timer of the page fires
      // late, and its frames come later still, so the bound is not a wall-clock one: the page asks for the scroll
      // with the test's own 200 ms timer, set when the page showed. A count that starts 100 ms later fails, less
      // however late a busy machine runs that timer.
      expect(times.requested).toBeGreaterThan(times.shown);
      expect(times.requested - times.yardstick).toBeLessThan(100);
      expect(times.focused).toBe("waitlist");
      await page.goBack();
      await page.waitForURL(`${suite.site.url}${route}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      expect(await settledScroll(page)).toBe(0);
      await page.close();
    },
  );

  it.each(legalRoutes)(
    "once hydrated, Join the Waitlist on %s leaves #waitlist focused when the page shows on a busy main thread",
    async (route) => {
      const page = await open(route, viewport);
      await whenHydrated(page);
      // Busy past the 200 ms: the router's own focus, in an effect of the same commit, then comes after the scroll's.
      const times = await joinTheWaitlist(page, { busyMs: 250 });
      expect(times.scroll - times.shown).toBeGreaterThanOrEqual(195);
      expect(times.focused).toBe("waitlist");
      await page.close();
    },
  );

  it.each(legalRoutes)(
    "after a client-side navigation from %s, the landing page's form answers: its behaviour comes as a chunk",
    async (route) => {
      const page = await open(route, viewport);
      await whenHydrated(page);
      // Only the landing page carries the form's script inline: this page has none.
      expect(await page.evaluate(() => "__waitlistForms" in window)).toBe(false);
      await joinTheWaitlist(page);
      await page.waitForFunction(() => (window as unknown as { __waitlistForms?: boolean }).__waitlistForms === true);
      const posts: string[] = [];
      page.on("request", (request) => void (request.method() === "POST" && posts.push(request.url())));
      await page.locator('#waitlist button[type="submit"]').click();
      await page.locator("#waitlist").getByRole("status").getByText("Please enter a valid email address").waitFor();
      expect(new URL(page.url()).pathname).toBe("/");
      expect(posts).toEqual([]);
      await page.close();
    },
  );

  it.each([
    ["Privacy Policy", "/privacy-policy/"],
    ["Terms of Service", "/terms-of-service/"],
  ])("the footer's %s link opens the page at its top from a scrolled landing page", async (name, route) => {
    const page = await open("/", viewport);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    expect(await settledScroll(page)).toBeGreaterThan(500);
    await page.getByRole("contentinfo").getByRole("link", { name }).click();
    await page.waitForURL(`${suite.site.url}${route}`);
    await page.getByRole("heading", { level: 1, name }).waitFor();
    expect(await settledScroll(page)).toBe(0);
    await page.close();
  });
});

describe("the 200 ms on a slow phone", () => {
  it("on a starved CPU (x6), Join the Waitlist lands #waitlist 80 px below the top, focused, every time, never before 200 ms", async () => {
    const delays: number[] = [];
    const focused: (string | undefined)[] = [];
    for (let run = 0; run < 12; run++) {
      const page = await open("/terms-of-service/", "phone");
      await whenHydrated(page);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 6 });
      const times = await joinTheWaitlist(page);
      delays.push(times.scroll - times.shown);
      focused.push(times.focused);
      await page.close();
    }
    // A busy main thread runs a timer late, never early; the first scroll event comes a frame after the scroll.
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(195);
    // The router focuses its wrapper in an effect that a busy phone runs late: the section must keep the focus.
    expect(focused).toEqual(Array(12).fill("waitlist"));
  }, 180_000);
});
