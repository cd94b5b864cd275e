import type { Page, Route } from "playwright-core";
import { expectAtOffset, hydrated, sectionPosition, setUpSuite, openPage, whenHydrated } from "./support";
import { freshEmail } from "../test/support/addresses";

jest.setTimeout(90_000);

const SUCCESS = "Welcome to the waitlist! Check your email for a confirmation message.";
const INVALID = "Please enter a valid email address";

const suite = setUpSuite();

/** Counts the POSTs a page sends. */
function posts(page: Page): string[] {
  const sent: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") sent.push(request.postData() ?? "");
  });
  return sent;
}

/** Starts loading a route on the slow phone and returns at once: each test taps the moment a control shows. */
const arrive = (path: string) =>
  openPage(suite.browser, `${suite.site.url}${path}`, { slowPhone: true, waitUntil: "commit" });

describe("on a slow phone, tapped the moment each control shows", () => {
  it("the hero's Join the Waitlist reaches #waitlist, 80 px below the top", async () => {
    const page = await arrive("/");
    await page.getByRole("main").getByRole("link", { name: "Join the Waitlist" }).tap();
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.close();
  });

  it("the menu toggle shows the menu, and its Features entry reaches #features at 80 px", async () => {
    const page = await arrive("/");
    await page.locator("header details > summary").tap();
    const menu = page.getByRole("navigation", { name: "Mobile" });
    await menu.waitFor();
    await menu.getByRole("link", { name: "Features" }).tap();
    expectAtOffset(await sectionPosition(page, "features"));
    await page.close();
  });

  it.each(["/privacy-policy/", "/terms-of-service/"])(
    "%s's Join the Waitlist reaches the landing page's #waitlist at 80 px",
    async (route) => {
      const page = await arrive(route);
      await page.getByRole("complementary").getByRole("link", { name: "Join the Waitlist" }).tap();
      await page.waitForURL(`${suite.site.url}/#waitlist`);
      expectAtOffset(await sectionPosition(page, "waitlist"));
      await page.close();
    },
  );

  it("an empty submit gets the spec's message and sends nothing", async () => {
    const page = await arrive("/");
    const sent = posts(page);
    await page.locator('#waitlist button[type="submit"]').tap();
    await page.locator("#waitlist").getByRole("status").getByText(INVALID).waitFor();
    expect(sent).toEqual([]);
    await page.close();
  });

  it("the form is answered by the page's script from the moment it shows, not from hydration", async () => {
    const page = await arrive("/");
    await page.locator('#waitlist button[type="submit"]').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __waitlistForms?: boolean }).__waitlistForms)).toBe(true);
    await page.close();
  });

  it("a new address is welcomed and stored once", async () => {
    const page = await arrive("/");
    const sent = posts(page);
    const email = freshEmail("slow");
    await page.locator("#waitlist").getByLabel("Email address").fill(email);
    await page.locator('#waitlist button[type="submit"]').tap();
    await page.locator("#waitlist").getByRole("status").getByText(SUCCESS).waitFor();
    expect(sent).toHaveLength(1);
    expect((await suite.site.rows()).filter((row) => row.email === email)).toHaveLength(1);
    await page.close();
  });
});

describe("before Gatsby's bundles have run", () => {
  /** Opens / with Gatsby's app bundle held back until the test releases it (or drops it). */
  async function withBundleHeld(path = "/") {
    const held: Route[] = [];
    const page = await openPage(suite.browser, `${suite.site.url}${path}`, {
      viewport: "phone",
      hasTouch: true,
      before: (page) => page.route(/\/app-[0-9a-f]+\.js$/, (route) => void held.push(route)),
      // Not `load`: it waits for the held script.
      waitUntil: "domcontentloaded",
    });
    await page.waitForFunction(() => document.querySelector('script[src*="/app-"]') !== null);
    expect(await hydrated(page)).toBe(false);
    return {
      page,
      release: async () => {
        await Promise.all(held.splice(0).map((route) => route.continue()));
        await page.unroute(/\/app-[0-9a-f]+\.js$/);
      },
      drop: () => Promise.all(held.splice(0).map((route) => route.abort("failed"))),
    };
  }

  it("an empty submit is answered with the spec's message at once, and hydration leaves it shown", async () => {
    const { page, release } = await withBundleHeld();
    const sent = posts(page);
    const status = page.locator("#waitlist").getByRole("status");
    await page.locator('#waitlist button[type="submit"]').tap();
    // The page's inline script answers it: not the browser's bubble, and not the bundles, which are held.
    await status.getByText(INVALID).waitFor();
    expect(await page.locator("#waitlist").getByLabel("Email address").getAttribute("aria-invalid")).toBe("true");
    expect(await hydrated(page)).toBe(false);
    await release();
    await whenHydrated(page);
    expect(await status.textContent()).toBe(INVALID);
    expect(await page.locator("#waitlist").getByLabel("Email address").getAttribute("aria-invalid")).toBe("true");
    expect(sent).toEqual([]);
    await page.close();
  });

  it("a valid submit is sent at once, exactly once, and stored; hydration neither repeats nor hides it", async () => {
    const { page, release } = await withBundleHeld();
    const sent = posts(page);
    const email = freshEmail("slow");
    await page.locator("#waitlist").getByLabel("Email address").fill(email);
    await page.locator("#waitlist").getByLabel("Email address").press("Enter");
    await page.locator("#waitlist").getByRole("status").getByText(SUCCESS).waitFor();
    expect(await hydrated(page)).toBe(false);
    await release();
    await whenHydrated(page);
    expect(await page.locator("#waitlist").getByRole("status").textContent()).toBe(SUCCESS);
    expect(sent).toHaveLength(1);
    expect((await suite.site.rows()).filter((row) => row.email === email)).toHaveLength(1);
    await page.close();
  });

  it("if they never arrive, the form still answers, and the address is stored", async () => {
    const { page, drop } = await withBundleHeld();
    const email = freshEmail("slow");
    await drop();
    await page.locator("#waitlist").getByLabel("Email address").fill(email);
    await page.locator('#waitlist button[type="submit"]').tap();
    await page.locator("#waitlist").getByRole("status").getByText(SUCCESS).waitFor();
    expect((await suite.site.rows()).filter((row) => row.email === email)).toHaveLength(1);
    await page.close();
  });

  it("the hero link, the menu and its entries already work", async () => {
    const { page } = await withBundleHeld();
    await page.getByRole("main").getByRole("link", { name: "Join the Waitlist" }).tap();
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.locator("header details > summary").tap();
    await page.getByRole("navigation", { name: "Mobile" }).getByRole("link", { name: "Features" }).tap();
    expectAtOffset(await sectionPosition(page, "features"));
    expect(await hydrated(page)).toBe(false);
    await page.close();
  });
});
