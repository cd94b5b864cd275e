// "Controls live" of npm run bench: Playwright in Chromium on the slow phone taps the hero's Join the Waitlist, then in
// a second load the form's submit button with the field empty, each as soon as it shows, and reads from the page
// when it scrolled and when the message appeared. The functions handed to the page run there, serialised: they may
// use only what the page has.

/**
 * One load of / on the throttled phone, tapping `target` as soon as it shows
 * and waiting for `done`; every time is read from the page's own clock, from
 * the start of the navigation.
 */
async function phoneLoad(browser, phone, origin, target, done) {
  const context = await browser.newContext({ viewport: phone.viewport, isMobile: true, hasTouch: true });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      const t = { fcp: null, tap: null, scroll: null, message: null, live: null };
      window.__bench = t;
      // When the page's inline script takes the waitlist form on (src/lib/waitlist-behaviour.ts): it sets this flag.
      Object.defineProperty(window, "__waitlistForms", {
        configurable: true,
        get: () => undefined,
        set: (value) => {
          t.live ??= performance.now();
          Object.defineProperty(window, "__waitlistForms", { value, writable: true, configurable: true });
        },
      });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) if (entry.name === "first-contentful-paint") t.fcp = entry.startTime;
      }).observe({ type: "paint", buffered: true });
      addEventListener("touchstart", (event) => (t.tap ??= event.timeStamp), { capture: true, passive: true });
      addEventListener("scroll", () => t.tap !== null && (t.scroll ??= performance.now()), { passive: true });
      new MutationObserver(() => {
        if (document.getElementById("waitlist-message")?.textContent) t.message ??= performance.now();
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const cdp = await context.newCDPSession(page);
    for (const [method, params] of phone.commands) await cdp.send(method, params);
    await page.goto(`${origin}/`, { waitUntil: "commit" });
    await target(page).tap();
    // A tap the page never answers (a control that needed its bundles, in an older build) is a lost tap.
    const answered = await page.waitForFunction(done, null, { timeout: 10_000 }).then(
      () => true,
      () => false,
    );
    await page.waitForFunction(
      () =>
        performance.getEntriesByType("navigation")[0]?.loadEventEnd > 0 &&
        performance.getEntriesByName("onInitialClientRender").length > 0,
      null,
      { timeout: 30_000 },
    );
    return await page.evaluate((answered) => {
      const hydrated = performance.getEntriesByName("onInitialClientRender")[0].startTime;
      return {
        ...window.__bench,
        answered,
        load: performance.getEntriesByType("navigation")[0].loadEventStart,
        hydrated,
        // A build from before the inline behaviour (BENCH_COMPARE): its form came alive with hydration.
        live: window.__bench.live ?? hydrated,
      };
    }, answered);
  } finally {
    await context.close();
  }
}

/** "Controls live": the hero link's tap, then (a second load) the form's empty submit. */
export async function controlsRun(browser, phone, origin) {
  const hero = await phoneLoad(
    browser,
    phone,
    origin,
    // By its text: a link now, a button in builds from before it became one (BENCH_COMPARE).
    (page) => page.getByRole("main").locator("a, button", { hasText: /^Join the Waitlist$/ }),
    () => window.__bench.scroll !== null,
  );
  const form = await phoneLoad(
    browser,
    phone,
    origin,
    (page) => page.locator('#waitlist button[type="submit"]'),
    () => window.__bench.message !== null,
  );
  return {
    fcp: form.fcp,
    load: form.load,
    hydrated: form.hydrated,
    formLive: form.live,
    heroTap: hero.tap,
    heroScroll: hero.answered ? hero.scroll : null,
    heroBeforeHydration: hero.tap < hero.hydrated,
    formTap: form.tap,
    formMessage: form.answered ? form.message : null,
    formBeforeHydration: form.tap < form.hydrated,
  };
}
