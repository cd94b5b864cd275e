import { accessibleState, expectAtOffset, openPage, sectionPosition, setUpSuite, type ViewportName } from "./support";

jest.setTimeout(60_000);

const suite = setUpSuite();

/** A page with JavaScript off: only HTML and CSS. */
const open = (path: string, viewport: ViewportName) =>
  openPage(suite.browser, `${suite.site.url}${path}`, { javaScriptEnabled: false, viewport });

describe("with JavaScript off", () => {
  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("the header's %s puts #%s 80 px below the top", async (name, id) => {
    const page = await open("/", "desktop");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();
    expectAtOffset(await sectionPosition(page, id));
    await page.close();
  });

  it("the hero's Join the Waitlist puts #waitlist 80 px below the top", async () => {
    const page = await open("/", "phone");
    await page.getByRole("main").getByRole("link", { name: "Join the Waitlist" }).click();
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.close();
  });

  it("the mobile menu opens and closes, its state exposed, and its entries reach their sections", async () => {
    const page = await open("/", "phone");
    const toggle = "header details > summary";
    const menu = page.getByRole("navigation", { name: "Mobile" });
    expect(await menu.isVisible()).toBe(false);
    await page.locator(toggle).click();
    expect(await menu.isVisible()).toBe(true);
    expect(await accessibleState(page, toggle)).toEqual({ role: "DisclosureTriangle", name: "Menu", expanded: true });
    await page.locator(toggle).click();
    expect(await menu.isVisible()).toBe(false);
    expect((await accessibleState(page, toggle)).expanded).toBe(false);
    await page.locator(toggle).click();
    await menu.getByRole("link", { name: "Join Waitlist" }).click();
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.close();
  });

  it.each(["/privacy-policy/", "/terms-of-service/"])(
    "%s's Join the Waitlist lands on the landing page with #waitlist 80 px below the top",
    async (route) => {
      const page = await open(route, "phone");
      await page.getByRole("complementary").getByRole("link", { name: "Join the Waitlist" }).click();
      await page.waitForURL(`${suite.site.url}/#waitlist`);
      expectAtOffset(await sectionPosition(page, "waitlist"));
      await page.close();
    },
  );
});
