import { readFileSync } from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { leaveLinks } from "../test/server/smtp";
import { axeViolations, cspViolations, recordCspViolations, setUpSuite, viewports } from "./support";

jest.setTimeout(60_000);

const suite = setUpSuite();

let counter = 0;
/** A long address, as some are: the page must still fit a phone. */
const freshEmail = () => `leave.${Date.now()}.${counter++}.with.a.long.name@example.com`;

/** The leave link of the confirmation in the outbox addressed to `email`, pointed at this server. */
async function leaveLinkFor(email: string): Promise<string> {
  for (let poll = 0; poll < 200; poll++) {
    for (const name of suite.site.outbox()) {
      const mail = await simpleParser(readFileSync(path.join(suite.site.outboxDir, name)));
      if (mail.text?.includes(email)) {
        const link = new URL(leaveLinks(mail).text);
        // Mail links point at SITE_URL; this deployment of it listens here.
        return `${suite.site.url}${link.pathname}${link.search}`;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`No confirmation for ${email} in the outbox.`);
}

/** Signs up through the landing page's form, with or without JavaScript. */
async function signUp(email: string, javaScriptEnabled: boolean): Promise<void> {
  const context = await suite.browser.newContext({ javaScriptEnabled, viewport: viewports.phone });
  const page = await context.newPage();
  await page.goto(`${suite.site.url}/`);
  const form = page.locator("#waitlist");
  await form.getByLabel("Email address").fill(email);
  await form.locator('button[type="submit"]').click();
  if (javaScriptEnabled) await form.getByRole("status").getByText("Welcome to the waitlist!").waitFor();
  else await page.getByRole("heading", { name: "You're on the list!" }).waitFor();
  await context.close();
}

/** A page in its own context; what the browser refuses under the page's policy (an inline style, say) is kept. */
async function open(url: string, options: { javaScriptEnabled: boolean; bypassCSP?: boolean }) {
  const context = await suite.browser.newContext({ viewport: viewports.phone, ...options });
  const page = await context.newPage();
  page.on("close", () => void context.close());
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy|Refused to/.test(message.text())) {
      errors.push(message.text());
    }
  });
  if (options.javaScriptEnabled) await recordCspViolations(page);
  await page.goto(url);
  return { page, errors };
}

const listed = (email: string) => suite.site.rows().some((row) => row.email === email);

describe.each([
  ["on", true],
  ["off", false],
])("the leave link from a received e-mail, with JavaScript %s", (_name, javaScriptEnabled) => {
  it("shows the address, and its button takes it off the list with no CSP violation", async () => {
    const email = freshEmail();
    await signUp(email, javaScriptEnabled);
    expect(listed(email)).toBe(true);
    const link = await leaveLinkFor(email);

    const { page, errors } = await open(link, { javaScriptEnabled });
    await page.getByRole("heading", { name: `Remove ${email} from the waitlist?` }).waitFor();
    // At phone width the address wraps: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    // Opening the link changed nothing.
    expect(listed(email)).toBe(true);
    await page.getByRole("button", { name: "Leave the waitlist" }).click();
    await page.getByRole("heading", { name: "You're off the list." }).waitFor();
    expect(await page.getByText("We won't e-mail you again.").isVisible()).toBe(true);
    expect(listed(email)).toBe(false);
    expect(errors).toEqual([]);
    if (javaScriptEnabled) expect(await cspViolations(page)).toEqual([]);
    await page.getByRole("link", { name: "Back to Tandem" }).click();
    await page.waitForURL(`${suite.site.url}/`);
    await page.close();
  });
});

describe("the leave pages", () => {
  it("have no accessibility violations (axe-core), before and after the button", async () => {
    const email = freshEmail();
    await signUp(email, true);
    const { page } = await open(await leaveLinkFor(email), { javaScriptEnabled: true, bypassCSP: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Leave the waitlist" }).click();
    await page.getByRole("heading", { name: "You're off the list." }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("answers a link that is not valid with a page that says what to do", async () => {
    const { page, errors } = await open(`${suite.site.url}/waitlist/leave?token=forged`, { javaScriptEnabled: false });
    await page.getByRole("heading", { name: "This link is not valid" }).waitFor();
    expect(await page.getByText(/Write to hello@jointandem\.app/).isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
