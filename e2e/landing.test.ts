import type { Page } from "playwright-core";
import { expectAtOffset, sectionPosition, viewports, setUpSuite } from "./support";

jest.setTimeout(60_000);

const suite = setUpSuite();

async function open(viewport: keyof typeof viewports): Promise<Page> {
  const page = await suite.browser.newPage({ viewport: viewports[viewport] });
  await page.goto(`${suite.site.url}/`, { waitUntil: "networkidle" });
  return page;
}

describe("scrolling to a section at desktop size", () => {
  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("the header's %s button puts #%s 80 px below the top", async (name, id) => {
    const page = await open("desktop");
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name }).click();
    expectAtOffset(await sectionPosition(page, id));
    await page.close();
  });

  it.each(["desktop", "phone"] as const)(
    "the hero's Join the Waitlist puts #waitlist 80 px below the top (%s)",
    async (viewport) => {
      const page = await open(viewport);
      await page.getByRole("button", { name: "Join the Waitlist" }).click();
      expectAtOffset(await sectionPosition(page, "waitlist"));
      await page.close();
    },
  );

  it("comes back up to #features from the bottom of the page", async () => {
    const page = await open("desktop");
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Features" }).click();
    expectAtOffset(await sectionPosition(page, "features"));
    await page.close();
  });
});

describe("the mobile menu at phone size", () => {
  it("hides the desktop buttons and shows the toggle", async () => {
    const page = await open("phone");
    expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Menu" }).isVisible()).toBe(true);
    await page.close();
  });

  it("toggles open and closed, with aria-expanded following", async () => {
    const page = await open("phone");
    const toggle = page.getByRole("button", { name: "Menu" });
    const menu = page.locator("#mobile-menu");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await menu.isVisible()).toBe(false);
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await menu.isVisible()).toBe(true);
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await menu.isVisible()).toBe(false);
    await page.close();
  });

  it("closes on Escape and gives focus back to the toggle", async () => {
    const page = await open("phone");
    const toggle = page.getByRole("button", { name: "Menu" });
    await toggle.click();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Escape");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Menu");
    await page.close();
  });

  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("choosing %s scrolls #%s to 80 px and closes the menu", async (name, id) => {
    const page = await open("phone");
    await page.getByRole("button", { name: "Menu" }).click();
    await page.locator("#mobile-menu").getByRole("button", { name }).click();
    expectAtOffset(await sectionPosition(page, id));
    expect(await page.getByRole("button", { name: "Menu" }).getAttribute("aria-expanded")).toBe("false");
    expect(await page.locator("#mobile-menu").isVisible()).toBe(false);
    await page.close();
  });
});
