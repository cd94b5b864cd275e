import type { Page } from "playwright-core";
import { openPage, recordTextChanges, setUpSuite, shownFor, textChanges, type ViewportName } from "./support";
import { until } from "../test/support/until";
import { freshEmail } from "../test/support/addresses";

jest.setTimeout(60_000);

const SUCCESS = "Welcome to the waitlist! Check your email for a confirmation message.";
const INVALID = "Please enter a valid email address";
const SERVER = "Something went wrong. Please try again.";
const NETWORK = "Unable to connect. Please check your connection and try again.";

const suite = setUpSuite();

/** Opens / and acts as soon as `load` fires, as a visitor would: hydration may still be under way. */
const open = (viewport: ViewportName = "desktop") => openPage(suite.browser, `${suite.site.url}/`, { viewport });

function form(page: Page) {
  const waitlist = page.locator("#waitlist");
  return {
    input: waitlist.getByLabel("Email address"),
    button: waitlist.locator('button[type="submit"]'),
    status: waitlist.getByRole("status"),
  };
}

/** Counts the form's POSTs to the site root. */
function countPosts(page: Page) {
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.postData() ?? "");
  });
  return posts;
}

describe.each(["desktop", "phone"] as const)("the waitlist form against the real signup endpoint (%s)", (viewport) => {
  it("stores a new address, writes its confirmation and shows the welcome message", async () => {
    const page = await open(viewport);
    const { input, button, status } = form(page);
    const email = freshEmail("e2e");
    const outboxBefore = suite.site.outbox().length;
    await input.fill(email);
    await button.click();
    await status.getByText(SUCCESS).waitFor();
    expect(await input.inputValue()).toBe("");
    expect(await suite.site.rows()).toContainEqual({ email, source: "start" });
    // The confirmation is sent after the reply: wait for it to land, and for no second one.
    await until(() => suite.site.outbox().length > outboxBefore);
    expect(suite.site.outbox().length).toBe(outboxBefore + 1);
    await page.close();
  });
});

describe("the waitlist form's states", () => {
  it("disables the controls and reads Joining... while the reply is pending", async () => {
    const page = await open();
    // Made before the POST: "Joining..." can show before Playwright hands the request to the route, on a busy machine.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(`${suite.site.url}/`, async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      await released;
      return route.continue();
    });
    const { input, button, status } = form(page);
    await input.fill(freshEmail("e2e"));
    await button.click();
    await page.getByRole("button", { name: "Joining..." }).waitFor();
    expect(await button.isDisabled()).toBe(true);
    expect(await input.isDisabled()).toBe(true);
    release();
    await status.getByText(SUCCESS).waitFor();
    expect(await button.textContent()).toBe("Join Waitlist");
    expect(await button.isDisabled()).toBe(false);
    await page.close();
  });

  it("clears the message and returns to idle 7 s after it appears", async () => {
    const page = await open();
    // Record, in the page's own clock, when the message region changes.
    await page.evaluate(recordTextChanges, "#waitlist-message");
    const { input, button, status } = form(page);
    await input.fill(freshEmail("e2e"));
    await button.click();
    await status.getByText(SUCCESS).waitFor();
    await page.waitForFunction(() => document.getElementById("waitlist-message")!.textContent === "", null, {
      timeout: 10_000,
    });
    // Measured in the page's clock: shown for 7 s, no less, and cleared promptly after.
    const shown = shownFor(await page.evaluate(textChanges), SUCCESS);
    expect(shown).toBeGreaterThanOrEqual(6990);
    expect(shown).toBeLessThan(7500);
    expect(await button.textContent()).toBe("Join Waitlist");
    await page.close();
  });

  it("on a starved CPU (x6), shows the message for 7 s, never less, every time", async () => {
    const shown: number[] = [];
    // Five in a row: the message set off before the paint (a layout effect) showed for less than 6990 ms one
    // time in two here.
    for (let run = 0; run < 5; run++) {
      const page = await open("phone");
      await page.evaluate(recordTextChanges, "#waitlist-message");
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 6 });
      const { input, button, status } = form(page);
      await input.fill(freshEmail("e2e"));
      await button.click();
      await status.getByText(SUCCESS).waitFor();
      await page.waitForFunction(() => document.getElementById("waitlist-message")!.textContent === "", null, {
        timeout: 15_000,
      });
      shown.push(shownFor(await page.evaluate(textChanges), SUCCESS));
      await page.close();
    }
    // A busy main thread runs the reset late, never early: the 7 s count from the paint that shows the message.
    expect(Math.min(...shown)).toBeGreaterThanOrEqual(6990);
    expect(Math.max(...shown)).toBeLessThan(7500);
  }, 120_000);

  it.each(["", "creator", "creator.example.com", "a@", "@example.com"])(
    "refuses %j with the client message and sends nothing",
    async (value) => {
      const page = await open();
      const posts = countPosts(page);
      const { input, button, status } = form(page);
      await input.fill(value);
      await button.click();
      await status.getByText(INVALID).waitFor();
      expect(await input.getAttribute("aria-invalid")).toBe("true");
      // A good address after it: requests leave in order, so the only POST being this one proves the first sent none.
      const email = freshEmail("e2e");
      await input.fill(email);
      await button.click();
      await status.getByText(SUCCESS).waitFor();
      expect(posts).toHaveLength(1);
      expect(new URLSearchParams(posts[0]).get("email")).toBe(email);
      await page.close();
    },
  );

  it("shows the server error on a 500 reply", async () => {
    const page = await open();
    await page.route(`${suite.site.url}/`, (route) =>
      route.request().method() === "POST" ? route.fulfill({ status: 500, body: "broken" }) : route.continue(),
    );
    const { input, button, status } = form(page);
    await input.fill(freshEmail("e2e"));
    await button.click();
    await status.getByText(SERVER).waitFor();
    await page.close();
  });

  it("shows the connection error when the request fails", async () => {
    const page = await open();
    await page.route(`${suite.site.url}/`, (route) =>
      route.request().method() === "POST" ? route.abort("internetdisconnected") : route.continue(),
    );
    const { input, button, status } = form(page);
    await input.fill(freshEmail("e2e"));
    await button.click();
    await status.getByText(NETWORK).waitFor();
    await page.close();
  });

  it("welcomes a repeat address like a new one and stores it once", async () => {
    const page = await open();
    const { input, button, status } = form(page);
    const email = freshEmail("e2e");
    for (const typed of [email, email.toUpperCase()]) {
      await input.fill(typed);
      await button.click();
      await status.getByText(SUCCESS).waitFor();
      await page.evaluate(() => (document.getElementById("waitlist-message")!.textContent = ""));
    }
    expect((await suite.site.rows()).filter((row) => row.email.toLowerCase() === email)).toHaveLength(1);
    await page.close();
  });
});

describe("without JavaScript", () => {
  it("shows all content, and the native form post stores the address and confirms it", async () => {
    const page = await openPage(suite.browser, `${suite.site.url}/`, { javaScriptEnabled: false, viewport: "phone" });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("grow. together.");
    for (const title of ["AI-powered matching", "Seamless Communication", "Group Collaborations"]) {
      expect(await page.getByRole("heading", { name: title }).isVisible()).toBe(true);
    }
    const email = freshEmail("e2e");
    await page.locator("#waitlist").getByLabel("Email address").fill(email);
    const posted = page.waitForResponse((response) => response.request().method() === "POST");
    await page.locator("#waitlist").locator('button[type="submit"]').click();
    expect((await posted).status()).toBe(200);
    await page.getByRole("heading", { level: 1, name: "You're on the list!" }).waitFor();
    expect(await page.getByRole("link", { name: /Back to/ }).getAttribute("href")).toBe("/");
    expect(await suite.site.rows()).toContainEqual({ email, source: "start" });
    await page.close();
  });
});
