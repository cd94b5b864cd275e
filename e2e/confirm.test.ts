import { axeViolations, cspViolations, openOnPhone, setUpSuite, signUpThroughForm } from "./support";
import { freshEmail } from "../test/support/addresses";
import { confirmLinks } from "../test/support/smtp";
import { patience } from "../test/support/patience";

jest.setTimeout(patience(60_000));

const suite = setUpSuite();
/** A long address, as some are: the page must still fit a phone. */
const longEmail = () => freshEmail("confirm", ".with.a.long.name");

/** The "Confirm my spot" link of the message addressed to `email`, pointed at this server. */
async function confirmLinkFor(email: string): Promise<string> {
  const links = confirmLinks(await suite.site.mailTo(email));
  if (!links.html) throw new Error(`The message to ${email} has no confirm button.`);
  expect(links.text).toBe(links.html);
  return suite.site.local(links.html);
}

const confirmedAt = (email: string) => suite.site.confirmedAt(email);

describe.each([
  ["on", true],
  ["off", false],
])("the confirm link from a received e-mail, with JavaScript %s", (_name, javaScriptEnabled) => {
  it("hides the address, and its button confirms the spot once, with no CSP violation", async () => {
    const email = longEmail();
    await signUpThroughForm(suite, email, javaScriptEnabled);
    expect(await confirmedAt(email)).toBeNull();
    const link = await confirmLinkFor(email);

    const { page, errors } = await openOnPhone(suite.browser, link, { javaScriptEnabled });
    await page.getByRole("heading", { name: "Confirm your spot on the waitlist?" }).waitFor();
    // The address is in neither the title nor the page: tabs, history and scanners' reports show titles.
    expect(await page.title()).not.toContain(email);
    expect(await page.locator("body").innerText()).not.toContain(email);
    // The Privacy Policy at the moment of consent, and a way out for whoever did not sign up.
    await page.getByRole("link", { name: "Privacy Policy" }).waitFor();
    await page.getByRole("link", { name: "This wasn't me: remove this address" }).waitFor();
    // At phone width the page wraps: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    // Opening the link (as a mail scanner would) confirmed nothing.
    expect(await confirmedAt(email)).toBeNull();
    await page.getByRole("button", { name: "Confirm my spot" }).click();
    await page.getByRole("heading", { name: "Your spot is confirmed." }).waitFor();
    expect(await confirmedAt(email)).toMatch(/^\d{4}-\d\d-\d\dT/);

    // The creator's own invite link (issue 44), in a field to copy from; with JavaScript a Copy link button that
    // puts it on the clipboard (Chromium has no Web Share API on Linux: no Share button).
    const field = page.getByRole("textbox", { name: "Your invite link" });
    const invite = await field.inputValue();
    // On the server that took the signup, which has no SITE_URL: the link leads back to it (issue 65).
    const { port } = new URL(suite.site.url);
    expect(invite).toMatch(new RegExp(`^http://localhost:${port}/\\?invite=[A-Za-z0-9_-]{12}$`));
    expect(await page.getByText("Nobody has joined through it yet").isVisible()).toBe(true);
    const copy = page.getByRole("button", { name: "Copy link" });
    if (javaScriptEnabled) {
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await copy.click();
      await page.getByRole("button", { name: "Link copied" }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(invite);
      // Focused, the field selects the whole link, to copy by hand.
      await field.focus();
      expect(
        await field.evaluate((input: HTMLInputElement) => [
          input.selectionStart,
          input.selectionEnd,
          input.value.length,
        ]),
      ).toEqual([0, invite.length, invite.length]);
    } else {
      expect(await copy.count()).toBe(0);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    expect(errors).toEqual([]);
    if (javaScriptEnabled) expect(await cspViolations(page)).toEqual([]);

    // The link again, later: it says so, with no second Confirm button, and the same invite link.
    await page.goto(link);
    await page.getByRole("heading", { name: "You're already confirmed." }).waitFor();
    expect(await page.getByRole("button", { name: "Confirm my spot" }).count()).toBe(0);
    expect(await page.getByRole("textbox", { name: "Your invite link" }).inputValue()).toBe(invite);
    await page.getByRole("link", { name: "Back to Tandem" }).click();
    await page.waitForURL(`${suite.site.url}/`);
    await page.close();
  });
});

describe("the confirm pages", () => {
  it("have no accessibility violations (axe-core), before and after the button", async () => {
    const email = longEmail();
    await signUpThroughForm(suite, email, true);
    const { page } = await openOnPhone(suite.browser, await confirmLinkFor(email), {
      javaScriptEnabled: true,
      bypassCSP: true,
    });
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Confirm my spot" }).click();
    await page.getByRole("heading", { name: "Your spot is confirmed." }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("answer a link that is not valid with a page that says what to do", async () => {
    const { page, errors } = await openOnPhone(suite.browser, `${suite.site.url}/waitlist/confirm?token=forged`, {
      javaScriptEnabled: false,
    });
    await page.getByRole("heading", { name: "This link is not valid" }).waitFor();
    expect(await page.getByText(/write to hello@jointandem\.app/).isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
