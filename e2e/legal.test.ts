import type { Page } from "playwright-core";
import { expectAtOffset, sectionPosition, settledScroll, viewports, setUpSuite } from "./support";

jest.setTimeout(60_000);

const verification = 'meta[name="tiktok-developers-site-verification"]';
const legalRoutes = ["/privacy-policy/", "/terms-of-service/"] as const;

const suite = setUpSuite();

async function open(route: string, viewport: keyof typeof viewports = "desktop"): Promise<Page> {
  const page = await suite.browser.newPage({ viewport: viewports[viewport] });
  await page.goto(`${suite.site.url}${route}`, { waitUntil: "networkidle" });
  return page;
}

describe("the verification meta tag", () => {
  it.each(legalRoutes)("is in the prerendered HTML of %s, and not of /", async (route) => {
    const legal = await (await fetch(`${suite.site.url}${route}`)).text();
    expect(legal).toMatch(/<meta[^>]+name="tiktok-developers-site-verification"[^>]+content="[^"]+"/);
    const home = await (await fetch(`${suite.site.url}/`)).text();
    expect(home).not.toContain("tiktok-developers-site-verification");
  });

  it.each(legalRoutes)("is gone from the document after Back to Home on %s", async (route) => {
    const page = await open(route);
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
    await page.getByRole("button", { name: "Join the Waitlist" }).click();
    await page.waitForURL(`${suite.site.url}/`);
    // The landing page scrolls about 200 ms after it is shown.
    await page.waitForFunction(() => window.scrollY > 0, null, { timeout: 5000 });
    expectAtOffset(await sectionPosition(page, "waitlist"));
    await page.close();
  });

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
