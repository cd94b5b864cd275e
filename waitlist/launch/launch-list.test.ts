import { readFileSync } from "node:fs";
import path from "node:path";
import { launchTool, LaunchToolError, launchToolsOnPage, privacyPolicyPage } from "./launch-list";

import { startPolicySite, type PolicySite } from "../../test/support/policy-site";

/*
 * Which launch mail tool the list may go to: the one the Privacy Policy the site serves names (issue 61), asked of the
 * site at SITE_URL, and held against the policy of the founder's checkout. The commands that write the list
 * (let-in --launch-tool, export --launch) call it before they read or write anything: cli/let-in.test.ts and
 * cli/run.test.ts hold that.
 */

const mailchimp = "Intuit Inc. (Mailchimp, United States)";
const policy = readFileSync(path.resolve(__dirname, "../../content/legal/privacy-policy.mdx"), "utf8");
/** The checkout's Privacy Policy, naming `tool` in its frontmatter (none as it stands). */
const checkoutNaming = (tool: string) => policy.replace(/^fingerprint:/m, `launchMailTool: ${tool}\nfingerprint:`);

let site: PolicySite;
beforeEach(async () => {
  site = await startPolicySite();
});
afterEach(() => site.stop());

describe("launchTool", () => {
  it("is the tool the served Privacy Policy names, asked of the site once", async () => {
    site.names(mailchimp);
    await expect(launchTool(site.url, policy)).resolves.toBe(mailchimp);
    await expect(launchTool(site.url, checkoutNaming(mailchimp))).resolves.toBe(mailchimp);
    expect(site.requests()).toBe(2);
  });

  it("refuses while the served policy names none: what to do, and that nothing was written", async () => {
    await expect(launchTool(site.url, checkoutNaming(mailchimp))).rejects.toThrow(
      new LaunchToolError(
        `The Privacy Policy at ${site.url}/privacy-policy/ names no launch mail tool, and the list goes to none before the policy names it: name it in the Privacy Policy's frontmatter (content/legal/privacy-policy.mdx, the field launchMailTool: its legal name and country, such as Intuit Inc. (Mailchimp, United States)), with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), deploy the site, and run this again; nothing was written.`,
      ),
    );
  });

  it("refuses a served policy that names another tool than the checkout's", async () => {
    site.names("Brevo SAS (France)");
    await expect(launchTool(site.url, checkoutNaming(mailchimp))).rejects.toThrow(
      new LaunchToolError(
        `The Privacy Policy at ${site.url}/privacy-policy/ names Brevo SAS (France) as the launch mail tool, but this checkout's names ${mailchimp}: the list goes only to the tool the policy in force names. If ${mailchimp} is the tool, deploy the policy that names it (with its dated entry) and run this again; if Brevo SAS (France) is, bring this checkout up to date (git pull); nothing was written.`,
      ),
    );
  });

  it("refuses a served page that names more than one tool: it is no one policy", async () => {
    site.names([mailchimp, "Brevo SAS (France)", mailchimp]);
    await expect(launchTool(site.url, checkoutNaming(mailchimp))).rejects.toThrow(
      new LaunchToolError(
        `The Privacy Policy at ${site.url}/privacy-policy/ names more than one launch mail tool (${mailchimp}; Brevo SAS (France)); the list goes to one only: name it in the Privacy Policy's frontmatter (content/legal/privacy-policy.mdx, the field launchMailTool: its legal name and country, such as Intuit Inc. (Mailchimp, United States)), with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), deploy the site, and run this again; nothing was written.`,
      ),
    );
  });

  it("refuses when the page cannot be read: not there, or no site at that address", async () => {
    site.names(null);
    await expect(launchTool(site.url, policy)).rejects.toThrow(
      new LaunchToolError(
        `The Privacy Policy at ${site.url}/privacy-policy/ could not be read (it answered 404), so which launch mail tool it names is not known, and the list goes to none it does not name. Check that SITE_URL is the site's address and the site is up, and run this again; nothing was written.`,
      ),
    );
    const gone = site.url;
    await site.stop();
    site = await startPolicySite(mailchimp);
    await expect(launchTool(gone, policy)).rejects.toThrow(
      /^The Privacy Policy at http:\/\/127\.0\.0\.1:\d+\/privacy-policy\/ could not be read \(ECONNREFUSED\), [^\n]*nothing was written\.$/,
    );
  });
});

describe("launchToolsOnPage", () => {
  it("reads the tool from the element <LaunchMailTool /> marks, once however often the page names it", () => {
    const named = `<span data-launch-mail-tool="">${mailchimp.replace("&", "&amp;")}</span>`;
    expect(launchToolsOnPage(`<p>Through ${named}, and again ${named}.</p>`)).toEqual([mailchimp]);
    expect(launchToolsOnPage('<p>Through <span data-launch-mail-tool="">Ben &amp; Co\n (Germany)</span>.</p>')).toEqual(
      ["Ben & Co (Germany)"],
    );
    expect(launchToolsOnPage("<p>Through the mailing service we choose for it.</p>")).toEqual([]);
    expect(privacyPolicyPage("https://jointandem.app")).toBe("https://jointandem.app/privacy-policy/");
  });
});
