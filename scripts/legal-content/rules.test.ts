import { requiredSections } from "../../config/legal-rules";
import { duplicateSlugProblems, frontmatterProblems, sectionProblems } from "./rules";

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
