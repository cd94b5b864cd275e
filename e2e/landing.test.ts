import type { Page } from "playwright-core";
import {
  accessibleState,
  expectAtOffset,
  sectionPosition,
  settledScroll,
  openPage,
  setUpSuite,
  whenHydrated,
  type ViewportName,
} from "./support";

jest.setTimeout(60_000);

const suite = setUpSuite();

/** Opens / and acts as soon as `load` fires, as a visitor would: hydration may still be under way. */
const open = (viewport: ViewportName, path = "/") => openPage(suite.browser, `${suite.site.url}${path}`, { viewport });

const toggle = "header details > summary";
const menuOpen = (page: Page) => page.locator("header details").evaluate((menu) => (menu as HTMLDetailsElement).open);

describe("the section links at desktop size", () => {
  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("the header's %s puts #%s 80 px below the top", async (name, id) => {
    const page = await open("desktop");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();
    expectAtOffset(await sectionPosition(page, id));
    expect(new URL(page.url()).hash).toBe(`#${id}`);
    await page.close();
  });

  it.each(["desktop", "phone"] as const)(
    "the hero's Join the Waitlist puts #waitlist 80 px below the top (%s)",
    async (viewport) => {
      const page = await open(viewport);
      await page.getByRole("main").getByRole("link", { name: "Join the Waitlist" }).click();
      expectAtOffset(await sectionPosition(page, "waitlist"));
      await page.close();
    },
  );

  it("comes back up to #features from the bottom of the page", async () => {
    const page = await open("desktop");
    await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: "instant" }));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Features" }).click();
    expectAtOffset(await sectionPosition(page, "features"));
    await page.close();
  });

  it("moves keyboard focus to the section, so Tab continues from there", async () => {
    const page = await open("desktop");
    await page.getByRole("main").getByRole("link", { name: "Join the Waitlist" }).focus();
    await page.keyboard.press("Enter");
    await settledScroll(page);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("waitlist");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("waitlist-email");
    await page.close();
  });

  it("Back returns to where the visitor was, Forward to the section again, with Gatsby's router running", async () => {
    const page = await open("desktop");
    await whenHydrated(page);
    await page.evaluate(() => window.scrollTo({ top: 200, behavior: "instant" }));
    await settledScroll(page);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Join Waitlist" }).click();
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.goBack();
    expect(await settledScroll(page)).toBe(200);
    expect(new URL(page.url()).hash).toBe("");
    await page.goForward();
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.close();
  });

  it("keeps the query string the visitor arrived with", async () => {
    const page = await open("desktop", "/?utm_source=tiktok&ref=bio");
    await page.getByRole("main").getByRole("link", { name: "Join the Waitlist" }).click();
    await sectionPosition(page, "waitlist");
    expect(page.url()).toBe(`${suite.site.url}/?utm_source=tiktok&ref=bio#waitlist`);
    await page.close();
  });
});

describe("the mobile menu at phone size", () => {
  it("hides the desktop links and shows a toggle named Menu, with its state exposed", async () => {
    const page = await open("phone");
    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    expect(await page.locator(toggle).isVisible()).toBe(true);
    expect(await accessibleState(page, toggle)).toEqual({ role: "DisclosureTriangle", name: "Menu", expanded: false });
    await page.close();
  });

  it("opens and closes with the toggle, its expanded state following", async () => {
    const page = await open("phone");
    const menu = page.getByRole("navigation", { name: "Mobile" });
    await page.locator(toggle).click();
    expect(await menu.isVisible()).toBe(true);
    expect((await accessibleState(page, toggle)).expanded).toBe(true);
    await page.locator(toggle).click();
    expect(await menu.isVisible()).toBe(false);
    expect((await accessibleState(page, toggle)).expanded).toBe(false);
    await page.close();
  });

  it("once enhanced, closes on Escape and gives focus back to the toggle", async () => {
    const page = await open("phone");
    await whenHydrated(page);
    await page.locator(toggle).click();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Features");
    await page.keyboard.press("Escape");
    expect(await menuOpen(page)).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("SUMMARY");
    await page.close();
  });

  it("once enhanced, closes when the visitor taps outside it", async () => {
    const page = await open("phone");
    await whenHydrated(page);
    await page.locator(toggle).click();
    await page.getByRole("heading", { level: 1 }).click();
    expect(await menuOpen(page)).toBe(false);
    await page.close();
  });

  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("once enhanced, choosing %s puts #%s 80 px below the top and closes the menu", async (name, id) => {
    const page = await open("phone");
    await whenHydrated(page);
    await page.locator(toggle).click();
    await page.getByRole("navigation", { name: "Mobile" }).getByRole("link", { name }).click();
    expectAtOffset(await sectionPosition(page, id));
    expect(await menuOpen(page)).toBe(false);
    expect(await page.getByRole("navigation", { name: "Mobile" }).isVisible()).toBe(false);
    await page.close();
  });
});
