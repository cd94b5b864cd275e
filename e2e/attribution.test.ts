import { openPage, setUpSuite, signUpOnPage, whenHydrated } from "./support";
import { freshEmail } from "../test/support/addresses";
import { patience } from "../test/support/patience";

jest.setTimeout(patience(60_000));

const suite = setUpSuite();
const campaign = "?utm_source=tiktok&utm_campaign=launch";

describe.each([
  ["on", true],
  ["off", false],
])("a visitor from a campaign link, with JavaScript %s", (_name, javaScriptEnabled) => {
  it("keeps the link's query through the page and the section links, and the signup is stored with its tags", async () => {
    const page = await openPage(suite.browser, `${suite.site.url}/${campaign}`, { javaScriptEnabled });
    if (javaScriptEnabled) await whenHydrated(page);
    expect(new URL(page.url()).search).toBe(campaign);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Join Waitlist" }).click();
    await page.waitForURL(`${suite.site.url}/${campaign}#waitlist`);

    const email = freshEmail("campaign");
    await signUpOnPage(page, email, javaScriptEnabled);

    expect(await suite.site.attributionOf(email)).toEqual({
      utmSource: "tiktok",
      utmMedium: null,
      utmCampaign: "launch",
      utmContent: null,
      utmTerm: null,
      ref: null,
      landingPath: "/",
    });
    await page.close();
  });
});
