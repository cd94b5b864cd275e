import { isoDate, launchMailToolOf, policyFingerprint, policyVersion, textFingerprint } from "./policies";
import { mailProviderOf, namesOf } from "./policies";

const valid = {
  title: "Privacy Policy",
  slug: "privacy-policy",
  description: "How we handle your information.",
  effectiveDate: "2025-06-01",
};

describe("dates", () => {
  it("normalises dates and refuses impossible ones", () => {
    expect(isoDate(new Date("2025-06-01T00:00:00Z"))).toBe("2025-06-01");
    expect(isoDate("2025-13-01")).toBeNull();
    expect(isoDate(20250601)).toBeNull();
  });
});

describe("textFingerprint", () => {
  it("ignores line endings, trailing spaces and the edges, and sees any change of words", () => {
    const text = "## Contact Us\n\nWrite to us.\n";
    expect(textFingerprint(text)).toMatch(/^[0-9a-f]{12}$/);
    expect(textFingerprint("\uFEFF\n## Contact Us  \r\n\r\nWrite to us.\r\n\n")).toBe(textFingerprint(text));
    expect(textFingerprint("## Contact Us\n\nWrite to us today.\n")).not.toBe(textFingerprint(text));
    // A blank line inside the text is a change (a new paragraph), not an edge.
    expect(textFingerprint("## Contact Us\n\n\nWrite to us.\n")).not.toBe(textFingerprint(text));
  });
});

describe("policyFingerprint", () => {
  const body = "## Sharing of Information\n\nThe launch e-mail goes through <LaunchMailTool />.\n";
  const mailchimp = "Intuit Inc. (Mailchimp, United States)";

  it("is the text's alone while the frontmatter names no launch mail tool: every fingerprint recorded so far stays", () => {
    for (const frontmatter of [{}, { launchMailTool: null }, { launchMailTool: "" }, { launchMailTool: "  " }, null]) {
      expect(policyFingerprint(frontmatter, body)).toBe(textFingerprint(body));
    }
    expect(launchMailToolOf({ launchMailTool: "  " })).toBeUndefined();
  });

  it("covers the tool once one is named, so naming it, or another, is a change of the policy", () => {
    const named = policyFingerprint({ launchMailTool: mailchimp }, body);
    expect(named).toMatch(/^[0-9a-f]{12}$/);
    expect(named).not.toBe(textFingerprint(body));
    expect(policyFingerprint({ launchMailTool: "Brevo SAS (France)" }, body)).not.toBe(named);
    // Spaces at its edges are not a change, as in the text; a word of the text still is.
    expect(policyFingerprint({ launchMailTool: ` ${mailchimp} ` }, `${body}  \n`)).toBe(named);
    expect(policyFingerprint({ launchMailTool: mailchimp }, `${body}More.\n`)).not.toBe(named);
    expect(launchMailToolOf({ launchMailTool: ` ${mailchimp} ` })).toBe(mailchimp);
  });

  it("covers the mail provider once one is named, beside the tool, and keeps the tool's alone as it was (issue 67)", () => {
    const ses = "Amazon Web Services, Inc. (Amazon SES, United States)";
    const toolAlone = policyFingerprint({ launchMailTool: mailchimp }, body);
    expect(policyFingerprint({ launchMailTool: mailchimp, mailProvider: " " }, body)).toBe(toolAlone);
    const both = policyFingerprint({ launchMailTool: mailchimp, mailProvider: ses }, body);
    const providerAlone = policyFingerprint({ mailProvider: ses }, body);
    expect(new Set([textFingerprint(body), toolAlone, both, providerAlone]).size).toBe(4);
    expect(policyFingerprint({ mailProvider: "Postmark" }, body)).not.toBe(providerAlone);
    expect(mailProviderOf({ mailProvider: ` ${ses} ` })).toBe(ses);
    expect(namesOf({ mailProvider: ses })).toBe("the text, or the mail provider it names,");
    // The controller and the host too (L8), each changing the fingerprint; the earlier ones stay as they were.
    const hosted = policyFingerprint({ mailProvider: ses, hostingProvider: "Hetzner Online GmbH (Germany)" }, body);
    expect(hosted).not.toBe(providerAlone);
    expect(policyFingerprint({ mailProvider: ses, controller: "Tandem Labs GmbH, Berlin" }, body)).not.toBe(hosted);
    expect(namesOf({ controller: "Tandem Labs GmbH, Berlin" })).toBe("the text, or the names it gives,");
  });
});

describe("policyVersion", () => {
  it("is the newest dated change, else the effective date", () => {
    expect(policyVersion(valid)).toBe("2025-06-01");
    expect(
      policyVersion({
        ...valid,
        updates: [
          { date: new Date("2026-11-23T00:00:00Z"), summary: "b" },
          { date: "2025-09-01", summary: "a" },
        ],
      }),
    ).toBe("2026-11-23");
    expect(policyVersion({})).toBeNull();
    expect(policyVersion("not frontmatter")).toBeNull();
  });
});
