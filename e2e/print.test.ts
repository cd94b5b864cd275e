import { setUpSuite, viewports } from "./support";

jest.setTimeout(60_000);

const suite = setUpSuite();

/*
 * A printed policy (or one saved as a PDF) is a copy someone keeps: it must
 * carry the record of changes, which the screen keeps behind a closed
 * "What changed" disclosure.
 */
describe("a policy printed", () => {
  it.each(["/privacy-policy/", "/terms-of-service/"])("shows %s's record of changes, open", async (route) => {
    const page = await suite.browser.newPage({ viewport: viewports.desktop });
    await page.goto(`${suite.site.url}${route}`);
    const disclosure = page.locator("details", { has: page.locator("summary", { hasText: "What changed" }) });
    const printed = page.locator("section", { has: page.getByRole("heading", { name: "What changed" }) });
    const entries = await disclosure.locator("li").allTextContents();
    expect(entries.length).toBeGreaterThan(0);

    // On screen: the disclosure, closed; the printed copy is not shown.
    await expect(disclosure.isVisible()).resolves.toBe(true);
    await expect(printed.isVisible()).resolves.toBe(false);

    await page.emulateMedia({ media: "print" });
    await expect(disclosure.isVisible()).resolves.toBe(false);
    await expect(printed.isVisible()).resolves.toBe(true);
    expect(await printed.locator("li").allTextContents()).toEqual(entries);
    for (const entry of await printed.locator("li").all()) await expect(entry.isVisible()).resolves.toBe(true);
    await page.close();
  });
});
