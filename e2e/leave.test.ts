import { maskEmail } from "../waitlist/email-address";
import { leaveLinks } from "../test/support/smtp";
import { axeViolations, cspViolations, openOnPhone, setUpSuite, signUpThroughForm } from "./support";
import { freshEmail } from "../test/support/addresses";
import { patience } from "../test/support/patience";

jest.setTimeout(patience(60_000));

const suite = setUpSuite();
/** A long address, as some are: the page must still fit a phone. */
const longEmail = () => freshEmail("leave", ".with.a.long.name");

/** The leave link of the confirmation addressed to `email`, pointed at this server. */
const leaveLinkFor = async (email: string) => suite.site.local(leaveLinks(await suite.site.mailTo(email)).text);
const signUp = (email: string, javaScriptEnabled: boolean) => signUpThroughForm(suite, email, javaScriptEnabled);
const open = (url: string, options: { javaScriptEnabled: boolean; bypassCSP?: boolean }) =>
  openOnPhone(suite.browser, url, options);

const listed = async (email: string) => (await suite.site.rows()).some((row) => row.email === email);

describe.each([
  ["on", true],
  ["off", false],
])("the leave link from a received e-mail, with JavaScript %s", (_name, javaScriptEnabled) => {
  it("shows the address, and its button takes it off the list with no CSP violation", async () => {
    const email = longEmail();
    await signUp(email, javaScriptEnabled);
    expect(await listed(email)).toBe(true);
    const link = await leaveLinkFor(email);

    const { page, errors } = await open(link, { javaScriptEnabled });
    await page.getByRole("heading", { name: `Remove ${maskEmail(email)} from the waitlist?` }).waitFor();
    // At phone width the address wraps: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    // Opening the link changed nothing.
    expect(await listed(email)).toBe(true);
    await page.getByRole("button", { name: "Leave the waitlist" }).click();
    await page.getByRole("heading", { name: "You're off the list." }).waitFor();
    expect(await page.getByText("We won't e-mail you again.").isVisible()).toBe(true);
    expect(await listed(email)).toBe(false);
    expect(errors).toEqual([]);
    if (javaScriptEnabled) expect(await cspViolations(page)).toEqual([]);
    await page.getByRole("link", { name: "Back to Tandem" }).click();
    await page.waitForURL(`${suite.site.url}/`);
    await page.close();
  });
});

describe("the leave pages", () => {
  it("have no accessibility violations (axe-core), before and after the button", async () => {
    const email = longEmail();
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
