import {
  duplicateSlugProblems,
  frontmatterProblems,
  historyProblems,
  isoDate,
  policyVersion,
  requiredSections,
  sectionProblems,
  textFingerprint,
} from "./legal-rules";

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

describe("historyProblems", () => {
  const body = "## Contact Us\n\nWrite to us.\n";
  const fingerprint = textFingerprint(body);

  it("accepts a text with its fingerprint, with or without dated changes", () => {
    expect(historyProblems("p.mdx", { ...valid, fingerprint }, body)).toEqual([]);
    const updates = [
      { date: "2026-11-23", summary: "Added the confirm step." },
      { date: "2025-09-01", summary: "Added the leave link." },
    ];
    expect(historyProblems("p.mdx", { ...valid, updates, fingerprint }, body)).toEqual([]);
  });

  it("fails a changed text, naming the file and the entry and fingerprint to add", () => {
    const [problem, ...rest] = historyProblems("p.mdx", { ...valid, fingerprint }, `${body}\nA new sentence.\n`);
    expect(rest).toEqual([]);
    expect(problem).toMatch(/^p\.mdx: the text changed since its last dated entry \(2025-06-01\)\./);
    expect(problem).toContain('Replace "updates" and "fingerprint" in its frontmatter with these lines');
    expect(problem).toMatch(
      new RegExp(
        `\\n\\nupdates:\\n  - date: \\d{4}-\\d\\d-\\d\\d\\n    summary: >-\\n      <what changed, in a sentence or two>\\nfingerprint: ${textFingerprint(`${body}\nA new sentence.\n`)}$`,
      ),
    );
  });

  it("asks for a missing fingerprint by its value", () => {
    expect(historyProblems("p.mdx", valid, body)).toEqual([
      `p.mdx: frontmatter field "fingerprint" is missing; set it to ${fingerprint}.`,
    ]);
  });

  it("names each malformed entry: not a list, no date, no summary, out of order, before the effective date", () => {
    expect(historyProblems("p.mdx", { ...valid, fingerprint, updates: "today" }, body)).toEqual([
      'p.mdx: frontmatter field "updates" must be a list of changes, each with a "date" and a "summary".',
    ]);
    const updates = [
      { date: "2025-09-01", summary: "Older first." },
      { date: "2026-01-01", summary: "Newer second." },
      { date: "June 2026", summary: "A date in words." },
      { date: "2025-08-01" },
      { date: "2025-05-01", summary: "Before the policy took effect." },
      { date: "2025-04-01", summary: "x".repeat(301) },
    ];
    expect(historyProblems("p.mdx", { ...valid, fingerprint, updates }, body)).toEqual([
      'p.mdx: entry 2 of "updates" (2026-01-01) must not be newer than the one above it (2025-09-01): newest first.',
      'p.mdx: entry 3 of "updates" needs a "date" written as YYYY-MM-DD (got "June 2026").',
      'p.mdx: entry 4 of "updates" needs a "summary": what changed, in a sentence or two.',
      'p.mdx: entry 5 of "updates" (2025-05-01) must be later than the effective date (2025-06-01).',
      'p.mdx: entry 6 of "updates": keep the "summary" to 300 characters or fewer.',
      'p.mdx: entry 6 of "updates" (2025-04-01) must be later than the effective date (2025-06-01).',
    ]);
  });
});
