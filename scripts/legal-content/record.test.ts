import { policyFingerprint, textFingerprint } from "../../waitlist/policies";
import matter from "gray-matter";
import { fingerprintProblem, historyProblems, suggestedRecord } from "./record";

const valid = {
  title: "Privacy Policy",
  slug: "privacy-policy",
  description: "How we handle your information.",
  effectiveDate: "2025-06-01",
};

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
        `\\n\\nupdates:\\n  - date: \\d{4}-\\d\\d-\\d\\d\\n    summary: >-\\n      <what changed, in a sentence or two>\\nfingerprint: "${textFingerprint(`${body}\nA new sentence.\n`)}"$`,
      ),
    );
  });

  it("fails a launch mail tool named, or another, with the text's fingerprint unchanged (issue 61)", () => {
    const tool = "Intuit Inc. (Mailchimp, United States)";
    const [problem, ...rest] = historyProblems("p.mdx", { ...valid, fingerprint, launchMailTool: tool }, body);
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^p\.mdx: the text, or the launch mail tool it names, changed since its last dated entry \(2025-06-01\)\./,
    );
    const named = policyFingerprint({ launchMailTool: tool }, body);
    expect(problem).toMatch(new RegExp(`\\nfingerprint: "${named}"$`));
    expect(historyProblems("p.mdx", { ...valid, fingerprint: named, launchMailTool: tool }, body)).toEqual([]);
    expect(
      historyProblems("p.mdx", { ...valid, fingerprint: named, launchMailTool: "Brevo SAS (France)" }, body),
    ).toEqual([expect.stringMatching(/^p\.mdx: the text, or the launch mail tool it names, changed since/)]);
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

describe("the record's fingerprint line", () => {
  it("reads back as the text's own fingerprint when that is digits alone, which bare YAML reads as a number", () => {
    let body = "";
    for (let i = 0; !/^\d+$/.test(textFingerprint(body)); i++) body = `## Contact Us\n\nWrite to us, ${i}.\n`;
    const line = suggestedRecord([], textFingerprint(body)).split("\n").at(-1)!;
    const { data } = matter(`---\ntitle: t\n${line}\n---\n`);
    expect(data.fingerprint).toBe(textFingerprint(body));
    expect(fingerprintProblem("p.mdx", { ...valid, fingerprint: data.fingerprint }, body)).toBeUndefined();
  });
});
