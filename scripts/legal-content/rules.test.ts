import { readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { requiredSections } from "../../config/legal-rules";
import { duplicateSlugProblems, frontmatterProblems, namedSettingsProblems } from "./rules";
import { sectionProblems, statementProblems } from "./rules";

const valid = {
  title: "Privacy Policy",
  slug: "privacy-policy",
  description: "How we handle your information.",
  effectiveDate: "2025-06-01",
};

describe("frontmatterProblems", () => {
  it("accepts complete frontmatter, with the date as text, ISO string or YAML Date", () => {
    expect(frontmatterProblems("p.mdx", valid)).toEqual([]);
    expect(frontmatterProblems("p.mdx", { ...valid, effectiveDate: "2025-06-01T00:00:00.000Z" })).toEqual([]);
    expect(frontmatterProblems("p.mdx", { ...valid, effectiveDate: new Date("2025-06-01") })).toEqual([]);
  });

  it.each(["title", "slug", "description", "effectiveDate"])("names the file and a missing %s", (field) => {
    const data: Record<string, unknown> = { ...valid };
    delete data[field];
    expect(frontmatterProblems("content/legal/p.mdx", data)).toEqual([
      `content/legal/p.mdx: frontmatter field "${field}" is missing.`,
    ]);
  });

  it("holds a policy the site links to to the name its links use, and leaves other pages their own titles", () => {
    const privacy = { ...valid, slug: "privacy-policy" };
    expect(frontmatterProblems("p.mdx", { ...privacy, title: "Privacy Policy" })).toEqual([]);
    expect(frontmatterProblems("p.mdx", { ...privacy, title: "Privacy Notice" })).toEqual([
      'p.mdx: frontmatter field "title" must be "Privacy Policy", the name the site\'s links to it use (config/site.ts, legalPages; change both together) (got "Privacy Notice").',
    ]);
    expect(frontmatterProblems("c.mdx", { ...valid, slug: "cookie-policy", title: "Cookies" })).toEqual([]);
  });

  it("takes the Privacy Policy's launch mail tool as a name on one line, or none; and no other policy's (issue 61)", () => {
    for (const launchMailTool of ["Intuit Inc. (Mailchimp, United States)", "", null, undefined]) {
      expect(frontmatterProblems("p.mdx", { ...valid, launchMailTool })).toEqual([]);
    }
    for (const launchMailTool of ["Mailchimp\nUnited States", "<b>Mailchimp</b>", "x".repeat(201), ["Mailchimp"], 42]) {
      expect(frontmatterProblems("p.mdx", { ...valid, launchMailTool })).toEqual([
        `p.mdx: frontmatter field "launchMailTool" must be the launch mail tool's legal name and country on one line, such as Intuit Inc. (Mailchimp, United States): up to 200 characters, no < > { } (got ${JSON.stringify(launchMailTool)}).`,
      ]);
    }
    const terms = { ...valid, slug: "terms-of-service", title: "Terms of Service" };
    expect(
      frontmatterProblems("t.mdx", { ...terms, launchMailTool: "Intuit Inc. (Mailchimp, United States)" }),
    ).toEqual([
      't.mdx: frontmatter field "launchMailTool" belongs to the Privacy Policy alone, which names the launch mail tool; remove it here.',
    ]);
  });

  it("takes the Privacy Policy's mail provider as a name on one line, or none; and no other policy's (issue 67)", () => {
    const ses = "Amazon Web Services, Inc. (Amazon SES, United States)";
    expect(frontmatterProblems("p.mdx", { ...valid, mailProvider: ses })).toEqual([]);
    expect(frontmatterProblems("p.mdx", { ...valid, mailProvider: "<b>SES</b>" })).toEqual([
      `p.mdx: frontmatter field "mailProvider" must be the mail provider's legal name and country on one line, such as ${ses}: up to 200 characters, no < > { } (got "<b>SES</b>").`,
    ]);
    const terms = { ...valid, slug: "terms-of-service", title: "Terms of Service" };
    expect(frontmatterProblems("t.mdx", { ...terms, mailProvider: ses })).toEqual([
      't.mdx: frontmatter field "mailProvider" belongs to the Privacy Policy alone, which names the mail provider; remove it here.',
    ]);
  });

  it("takes the controller and the host the Privacy Policy records as names on one line, and holds them to the settings (issue 67)", () => {
    const controller = "Tandem Labs GmbH, Example Street 1, 10115 Berlin, Germany";
    const host = "Hetzner Online GmbH (Germany)";
    expect(frontmatterProblems("p.mdx", { ...valid, controller, hostingProvider: host })).toEqual([]);
    expect(frontmatterProblems("p.mdx", { ...valid, controller: "x".repeat(501) })).toEqual([
      expect.stringMatching(
        /^p\.mdx: frontmatter field "controller" must be the controller's legal name and postal address on one line, .*up to 500 characters/,
      ),
    ]);
    const settings = {
      controllerName: "Tandem Labs GmbH",
      controllerAddress: "Example Street 1, 10115 Berlin, Germany",
      hostingProvider: host,
    };
    expect(namedSettingsProblems({ controller: ` ${controller} `, hostingProvider: host }, settings)).toEqual([]);
    expect(
      namedSettingsProblems({ controller }, { ...settings, hostingProvider: "Netlify, Inc. (United States)" }),
    ).toEqual([
      'The Privacy Policy shows Netlify, Inc. (United States) (HOSTING_PROVIDER (Netlify on a build there)), but its frontmatter\'s "hostingProvider" records none. A change of who the policy names is a change of the policy: write "hostingProvider: Netlify, Inc. (United States)" in content/legal/privacy-policy.mdx, with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), or set the settings back.',
    ]);
  });

  it("reports every field when there is no frontmatter at all", () => {
    expect(frontmatterProblems("p.mdx", null)).toHaveLength(4);
  });

  it.each([
    [{ title: 42 }, 'frontmatter field "title" must be text.'],
    [{ slug: "Privacy Policy" }, 'frontmatter field "slug" must be lowercase words joined by hyphens'],
    [{ slug: "/privacy-policy/" }, 'frontmatter field "slug" must be lowercase words joined by hyphens'],
    [{ description: "x".repeat(301) }, 'frontmatter field "description" is 301 characters; keep it to 300 or fewer.'],
    [{ effectiveDate: "June 1, 2025" }, 'frontmatter field "effectiveDate" must be a date written as YYYY-MM-DD'],
    [{ effectiveDate: "2025-02-30" }, 'frontmatter field "effectiveDate" must be a date written as YYYY-MM-DD'],
  ])("refuses %j", (change, message) => {
    const [problem, ...rest] = frontmatterProblems("p.mdx", { ...valid, ...change });
    expect(rest).toEqual([]);
    expect(problem).toContain(`p.mdx: ${message}`);
  });
});

describe("sectionProblems", () => {
  const privacyHeadings = [
    "Information We Collect",
    "How We Use Information",
    "Sharing of Information",
    "Cookies and Tracking",
    "Your Choices",
    "Data Security",
    "Children Under 13",
    "Changes to This Policy",
    "Contact Us",
    "Monetization and Payments",
  ];

  it("accepts every required section in order, with extra sections between", () => {
    expect(sectionProblems("p.mdx", "privacy-policy", privacyHeadings)).toEqual([]);
    const extra = [...privacyHeadings.slice(0, 3), "International Transfers", ...privacyHeadings.slice(3)];
    expect(sectionProblems("p.mdx", "privacy-policy", extra)).toEqual([]);
  });

  it("names each missing section", () => {
    const without = privacyHeadings.filter((heading) => !/Children|Security/.test(heading));
    expect(sectionProblems("p.mdx", "privacy-policy", without)).toEqual([
      'p.mdx: required section "data security" is missing; add an "## " heading for it.',
      'p.mdx: required section "children under 13" is missing; add an "## " heading for it.',
    ]);
  });

  it("names a section out of order and where it belongs", () => {
    const moved = [...privacyHeadings.slice(1), privacyHeadings[0]!];
    expect(sectionProblems("p.mdx", "privacy-policy", moved)).toEqual([
      'p.mdx: required section "information we collect" ("## Information We Collect") is out of the spec\'s order; move it before "## How We Use Information".',
    ]);
  });

  it("requires the twelve sections of the Terms of Service", () => {
    expect(requiredSections["terms-of-service"]!.map((section) => section.name)).toEqual([
      "eligibility",
      "your account",
      "user conduct",
      "AI-based matching",
      "collaborations",
      "paid services",
      "intellectual property",
      "termination",
      "third-party services",
      "limitation of liability",
      "changes to these terms",
      "contact",
    ]);
    expect(sectionProblems("t.mdx", "terms-of-service", [])).toHaveLength(12);
  });

  it("lets a policy the spec does not name through", () => {
    expect(sectionProblems("c.mdx", "cookie-policy", [])).toEqual([]);
  });
});

describe("duplicateSlugProblems", () => {
  it("names the second file that takes a slug", () => {
    expect(
      duplicateSlugProblems([
        { file: "a.mdx", slug: "privacy-policy" },
        { file: "b.mdx", slug: "terms-of-service" },
        { file: "c.mdx", slug: "privacy-policy" },
      ]),
    ).toEqual(['c.mdx: frontmatter field "slug" is "privacy-policy", already used by a.mdx.']);
  });
});

describe("statementProblems", () => {
  const privacy = "privacy-policy";
  const complete = [
    "## How We Use Information",
    "- **our legitimate interest** in learning which posts bring creators, for which we keep the page and any campaign tag, and in giving early access first to those who invited others (Art. 6(1)(f)).",
    // No word of invites here, so that the test of the invite code's basis below still finds it missing.
    "We let the confirmed in a wave at a time, by signup order or by who brought the most confirmed creators, and among equals whoever signed up first. The ranking rests on our legitimate interest (Art. 6(1)(f)).",
    "## Sharing",
    "- <LaunchMailTool />: the address, that person's own link to leave and their wave, nothing else. It keeps them for that e-mail only, and sends it with its open and click tracking turned off.",
    "An e-mail that bounced for good ends our mail to that address; marked as spam, we delete the entry at once. We keep a fingerprint of its inbox for <SuppressionRetention />, on our legitimate interest (Art. 6(1)(f)).",
    "A member whose e-mail bounced for good: we delete the entry <UndeliverableRetention /> after the bounce.",
    "- Our e-mail provider, <MailProvider />, keeps a suppression list of its own under its own terms: write to <ContactEmail /> and we ask it to remove you.",
    "## Cookies and Tracking",
    "The launch e-mail has no tracking images, its links are not rewritten, and neither we nor the tool record whether you open it or what you click.",
    "## Your Choices",
    "- **Restriction**: we keep it and use it for nothing else (Art. 18): no e-mail, no wave, and no time limit deletes it. Leaving still does.",
    "- **Portability**: in a machine-readable file (Art. 20).",
    "- You have the right to lodge a complaint with a supervisory authority (Art. 77).",
    "## Your Right to Object",
    "You may object at any time (Art. 21).",
    "## How Long",
    "We keep your entry until you leave, or until <LetInRetention /> after the wave that let you in.",
    "An export by our founders is deleted within a month, and backups within 30 days.",
  ].join("\n\n");
  const named = (body: string) => statementProblems("p.mdx", privacy, body).map((problem) => problem.split(";")[0]);

  it("passes the Privacy Policy as it stands, and a policy that names each right and basis once", () => {
    const source = readFileSync(path.resolve(__dirname, "../../content/legal/privacy-policy.mdx"), "utf8");
    expect(statementProblems("content/legal/privacy-policy.mdx", privacy, matter(source).content)).toEqual([]);
    expect(named(complete)).toEqual([]);
  });

  it("names each right left out, by the file, with what to write", () => {
    expect(
      statementProblems("p.mdx", privacy, complete.replace(/.*Art\. 18.*\n/, "").replace(/.*Art\. 20.*\n/, "")),
    ).toEqual([
      'p.mdx: does not name the right to restriction of processing (Art. 18 GDPR); add it to the rights, with its article, such as "Restriction: ... we keep it and use it for nothing else until the question is settled (Art. 18)."',
      'p.mdx: does not name the right to data portability (Art. 20 GDPR); add it to the rights, with its article, such as "Portability: the information you gave us in a common machine-readable file (Art. 20)."',
      expect.stringMatching(/^p\.mdx: does not name what a restriction does/),
    ]);
  });

  it("refuses the right to complain said only under a condition", () => {
    const conditional = complete.replace(
      "You have the right to lodge a complaint",
      "Depending on where you live, you may have the right to lodge a complaint",
    );
    expect(named(conditional)).toEqual([
      'p.mdx: names the right to lodge a complaint with a supervisory authority (Art. 77 GDPR) only under a condition ("Depending on")',
    ]);
  });

  it("wants the right to object as a section of its own, not a sentence among others (Art. 21(4))", () => {
    const among = complete.replace("## Your Right to Object\n\nYou may object", "You have the right to object");
    expect(named(among)).toEqual([
      "p.mdx: does not name the right to object, in a section of its own (Art. 21(4) GDPR: clearly and separately from any other information)",
    ]);
  });

  it("wants a legal basis said with what it is the basis of, in one paragraph or list item", () => {
    const apart = complete.replace(
      "and in giving early access first to those who invited others (Art. 6(1)(f)).",
      "(Art. 6(1)(f)).\n\nWe keep the invite code of the link you came by.",
    );
    expect(named(apart)).toEqual([
      "p.mdx: does not name a legal basis for keeping the invite code a signup came by and ranking inviters",
    ]);
    expect(named(complete.replace("any campaign tag", "any tag"))).toEqual([
      "p.mdx: does not name a legal basis for keeping a signup's page and campaign tag",
    ]);
  });

  it("wants how people are let in at launch, by signup order or by invites, with the basis of the ranking, in one paragraph (issue 51)", () => {
    const waves = "We let the confirmed in a wave at a time, by signup order or by who";
    const letIn =
      "p.mdx: does not name how people are let in at launch (a wave at a time, by signup order or by invites, ties by who signed up first) and the legal basis for ranking inviters";
    expect(named(complete.replace(waves, "We let the confirmed in by who"))).toEqual([letIn]);
    // Ties said apart from the order, or the basis left out: not said plainly.
    expect(
      named(
        complete.replace(
          ", and among equals whoever signed up first.",
          ".\n\nAmong equals, whoever signed up first.\n\n",
        ),
      ),
    ).toEqual([letIn]);
    expect(named(complete.replace(" The ranking rests on our legitimate interest (Art. 6(1)(f)).", ""))).toEqual([
      letIn,
    ]);
  });

  it("wants the launch mailing service named with exactly what it receives, and what it keeps (issue 51)", () => {
    const receives =
      "p.mdx: does not name what the launch mailing service receives (each address, that person's own link to leave and their wave, nothing else) and what it keeps";
    expect(named(complete.replace(" and their wave", ""))).toEqual([receives]);
    expect(named(complete.replace(", nothing else", ""))).toEqual([receives]);
    expect(named(complete.replace(" It keeps them for that e-mail only,", ""))).toEqual([receives]);
    expect(named(complete.replace("<LaunchMailTool />", "Our mailing service"))).toEqual([receives, trackingOff]);
  });

  const trackingOff =
    "p.mdx: does not name that the launch mailing service sends the launch e-mail with its open and click tracking turned off, where it is named";
  const untracked =
    "p.mdx: does not name that the launch e-mail is not tracked (no tracking images, no links rewritten, its opening and clicks not recorded)";

  it("wants the launch mailing service's open and click tracking said to be off where it is named (issue 61)", () => {
    expect(named(complete.replace(", and sends it with its open and click tracking turned off", ""))).toEqual([
      trackingOff,
    ]);
    expect(named(complete.replace("turned off", "as the tool sets it"))).toEqual([trackingOff]);
  });

  it("wants the launch e-mail said to be untracked in one paragraph: no tracking images, no rewritten links, no opens or clicks recorded (issue 61)", () => {
    const paragraph = /The launch e-mail has no tracking images.*\n/;
    expect(named(complete.replace(paragraph, ""))).toEqual([untracked]);
    expect(named(complete.replace("no tracking images", "few images"))).toEqual([untracked]);
    expect(named(complete.replace("are not rewritten", "are shortened"))).toEqual([untracked]);
    expect(named(complete.replace("neither we nor the tool record", "we record"))).toEqual([untracked]);
    expect(named(complete.replace(", and neither we", ".\n\nNeither we"))).toEqual([untracked]);
  });

  it("wants what a bounce and a spam complaint do, the inbox's fingerprint and its days, with their basis, in one paragraph (issue 60)", () => {
    const bounces =
      "p.mdx: does not name what a bounce for good and a spam complaint do (no more e-mail, the entry deleted at once), the fingerprint of the inbox kept for <SuppressionRetention />, and the legal basis";
    expect(named(complete.replace("<SuppressionRetention />", "a while"))).toEqual([bounces]);
    expect(named(complete.replace("we delete the entry at once", "we note it"))).toEqual([bounces]);
    expect(named(complete.replace(". We keep a fingerprint", ".\n\nWe keep a fingerprint"))).toEqual([bounces]);
  });

  it("wants how long an entry outlives its wave, and what a restriction does, each in one place (issue 61)", () => {
    const afterWave =
      "p.mdx: does not name how long an entry is kept after the wave that let its person in (<LetInRetention />)";
    expect(named(complete.replace("<LetInRetention />", "a while"))).toEqual([afterWave]);
    expect(named(complete.replace(" after the wave that let you in", ""))).toEqual([afterWave]);
    const restriction =
      "p.mdx: does not name what a restriction does (no e-mail, no wave, no time limit deletes it, leaving still does)";
    expect(named(complete.replace("no e-mail, ", ""))).toEqual([restriction]);
    expect(named(complete.replace(" Leaving still does.", ""))).toEqual([restriction]);
    expect(named(complete.replace(", and no time limit deletes it", ""))).toEqual([restriction]);
  });

  it("holds only the Privacy Policy to them", () => {
    expect(statementProblems("t.mdx", "terms-of-service", "")).toEqual([]);
    expect(statementProblems("c.mdx", "cookie-policy", "")).toEqual([]);
  });
});
