import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { openPage, setUpSuite } from "./support";
import { patience } from "../test/support/patience";

jest.setTimeout(patience(60_000));

const suite = setUpSuite();

/*
 * A printed policy (or one saved as a PDF) is a copy someone keeps: it must
 * carry the record of changes, which the screen keeps behind a closed
 * "What changed" disclosure.
 */
/** The policies that have a record of changes to show, by route. */
const folder = path.resolve(__dirname, "../content/legal");
const withRecord = readdirSync(folder)
  .map((name) => matter(readFileSync(path.join(folder, name), "utf8")).data)
  .filter((data) => Array.isArray(data.updates) && data.updates.length > 0)
  .map((data) => `/${data.slug}/`);

describe("a policy printed", () => {
  it.each(withRecord)("shows %s's record of changes, open", async (route) => {
    const page = await openPage(suite.browser, `${suite.site.url}${route}`);
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
