import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { patience } from "../test/support/patience";
import { runWaitlist } from "../test/support/process";
import { vnuErrors } from "../test/support/vnu";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import { axeViolations, launchBrowser, openPage, screenshotPath, viewports, type ViewportName } from "./support";

/*
 * npm run waitlist -- report, as a founder opens it: the file, from disk, in a browser with no network to speak of.
 * It must show everything at once, ask for nothing, and fit a phone.
 */

jest.setTimeout(patience(60_000));

let dir: string;
let file: string;
let url: string;
let browser: Browser;

/** Five weeks of signups from a handful of links: one tag as long as the list keeps (100 characters), invites. */
async function seed(database: string): Promise<void> {
  const store = new SqliteStore(database);
  const sources = ["tiktok", "tiktok", "instagram", "newsletter", null];
  const longTag = "creator-collab-week-".repeat(5);
  const codes: string[] = [];
  for (let n = 0; n < 120; n++) {
    const email = `p${n}@example.com`;
    const at = new Date(Date.now() - ((n * 13) % 35) * 86_400_000 - (n % 9) * 3_600_000);
    const attribution = {
      utmSource: sources[n % sources.length]!,
      utmMedium: null,
      utmCampaign: n % 4 === 0 ? longTag : n % 3 === 0 ? "launch" : null,
      utmContent: null,
      utmTerm: null,
      ref: n % 10 === 0 ? "maya" : null,
      landingPath: "/",
    };
    const invitedBy = n > 30 && n % 2 === 1 ? codes[n % codes.length] : undefined;
    await store.add({ email, emailKey: email, source: "start", at, attribution, mailboxDigest: `m-${n}`, invitedBy });
    if (n % 3 !== 2) {
      const confirmed = await store.confirm(email, {
        createdAt: at.toISOString(),
        at: new Date(at.getTime() + 3_600_000),
        privacyPolicy: null,
      });
      if (n < 30) codes.push(confirmed!.inviteCode);
    }
  }
  await store.add({ email: "gone@example.com", emailKey: "gone@example.com", source: "start" });
  await store.remove("gone@example.com", "link", new Date());
  await store.close();
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "report-e2e-"));
  const database = path.join(dir, "waitlist.db");
  await seed(database);
  file = path.join(dir, "report.html");
  const written = await runWaitlist(["report", "--out", file], { WAITLIST_DB: database, TZ: "Europe/Berlin" });
  if (written.code !== 0) throw new Error(`The report was not written:\n${written.stderr}`);
  url = pathToFileURL(file).href;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The elements of the page that reach past the right edge of the viewport, by tag and text. */
function pastTheEdge(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll("body *")]
      .filter((element) => element.getBoundingClientRect().right > width + 0.5)
      .map((element) => `${element.tagName.toLowerCase()}: ${(element.textContent ?? "").slice(0, 40)}`);
  });
}

describe("the report, opened from its file", () => {
  it.each(Object.keys(viewports) as ViewportName[])(
    "on a %s: every chart drawn and named, nothing asked of any origin, no error, nothing wider than the screen",
    async (viewport) => {
      const requests: string[] = [];
      const errors: string[] = [];
      const page = await openPage(browser, url, {
        viewport,
        before(page) {
          page.on("request", (request) => requests.push(request.url()));
          page.on("console", (message) => {
            if (message.type() === "error") errors.push(message.text());
          });
          page.on("pageerror", (error) => errors.push(error.message));
        },
      });
      await page.screenshot({ path: screenshotPath("/report/", viewport), fullPage: true });

      // The file itself, and not one request more: no script, style, font or image from anywhere.
      expect(requests).toEqual([url]);
      expect(await page.evaluate(() => performance.getEntriesByType("resource").length)).toBe(0);
      expect(errors).toEqual([]);

      const charts = page.getByRole("img");
      expect(await charts.count()).toBe(6);
      for (const chart of await charts.all()) {
        const box = (await chart.boundingBox())!;
        expect(box.width).toBeGreaterThan(250);
        expect(box.x + box.width).toBeLessThanOrEqual(viewports[viewport].width);
      }
      await expect(page.getByRole("img", { name: /^Two bar charts over the days/ }).isVisible()).resolves.toBe(true);
      await expect(page.getByRole("table", { name: "The funnel" }).isVisible()).resolves.toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewports[viewport].width,
      );
      expect(await pastTheEdge(page)).toEqual([]);
      await page.close();
    },
  );

  it.each(Object.keys(viewports) as ViewportName[])("on a %s: axe-core finds no violation", async (viewport) => {
    // axe is injected as a script, which the page's own policy rightly refuses.
    const page = await openPage(browser, url, { viewport, bypassCSP: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("shows its charts and tables with JavaScript off, and in print", async () => {
    const page = await openPage(browser, url, { viewport: "phone", javaScriptEnabled: false });
    for (const media of ["screen", "print"] as const) {
      await page.emulateMedia({ media });
      for (const chart of await page.getByRole("img").all())
        expect((await chart.boundingBox())!.height).toBeGreaterThan(40);
      await expect(page.getByRole("table", { name: "Top inviters" }).isVisible()).resolves.toBe(true);
    }
    await page.close();
  });

  it("is valid HTML: the Nu HTML Checker finds no error", async () => {
    expect(await vnuErrors([file])).toEqual([]);
  });
});
