import type { Browser, Page } from "playwright-core";
import { launchBrowser, openOnPhone, openPage } from "./support";
import { patience } from "../test/support/patience";

jest.setTimeout(patience(60_000));

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/*
 * A file's browser closes in its afterAll, right after the last test closed
 * its page. A close still running then fails; and as it runs from an event of
 * the browser launched in beforeAll, Jest charges the failure to that hook,
 * that is to every test of the file ("Target page, context or browser has
 * been closed"). CI lost runs to it in e2e/leave.test.ts and
 * e2e/confirm.test.ts. So a page the helpers open has closed its context by the time
 * its close() resolves.
 */
describe.each([
  ["openOnPhone", () => openOnPhone(browser, "about:blank", { javaScriptEnabled: true }).then(({ page }) => page)],
  ["openPage", () => openPage(browser, "about:blank")],
  ["openPage on the slow phone", () => openPage(browser, "about:blank", { slowPhone: true })],
])("a page of %s", (_name, open: () => Promise<Page>) => {
  it("has closed its context, and left nothing running, once its close() resolves", async () => {
    const page = await open();
    expect(browser.contexts()).toEqual([page.context()]);
    await page.close();
    expect(browser.contexts()).toEqual([]);
  });
});
