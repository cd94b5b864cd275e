import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import matter from "gray-matter";
import { historyProblems, textFingerprint } from "../../src/lib/legal-rules";
import { checkLegalContent } from "./check-legal-content";

const contentDir = path.resolve(__dirname, "../../content/legal");
const fixtures = path.resolve(__dirname, "../fixtures/legal");
const fixture = (name: string) => path.join(fixtures, name);

describe("content/legal", () => {
  const files = readdirSync(contentDir)
    .filter((name) => name.endsWith(".mdx"))
    .map((name) => path.join(contentDir, name));

  it("holds both policies of the spec", () => {
    expect(files.map((file) => path.basename(file)).sort()).toEqual(["privacy-policy.mdx", "terms-of-service.mdx"]);
  });

  it("compiles, has complete frontmatter and every required section in order", () => {
    // On failure Jest prints each problem, naming the file and what to fix.
    expect(checkLegalContent(files)).toEqual([]);
  });
});

describe("the content check", () => {
  it("names the file and the section a policy dropped", () => {
    expect(checkLegalContent([fixture("missing-section/privacy-policy.mdx")])).toEqual([
      'test/fixtures/legal/missing-section/privacy-policy.mdx: required section "cookies and tracking" is missing; add an "## " heading for it.',
    ]);
  });

  it("names a section moved out of the spec's order", () => {
    expect(checkLegalContent([fixture("out-of-order/terms-of-service.mdx")])).toEqual([
      'test/fixtures/legal/out-of-order/terms-of-service.mdx: required section "eligibility" ("## Eligibility") is out of the spec\'s order; move it before "## Your Account".',
    ]);
  });

  it("names every broken frontmatter field", () => {
    expect(checkLegalContent([fixture("bad-frontmatter.mdx")])).toEqual([
      'test/fixtures/legal/bad-frontmatter.mdx: frontmatter field "title" is missing.',
      'test/fixtures/legal/bad-frontmatter.mdx: frontmatter field "slug" must be lowercase words joined by hyphens, like "privacy-policy" (got "Cookie Policy").',
      'test/fixtures/legal/bad-frontmatter.mdx: frontmatter field "effectiveDate" must be a date written as YYYY-MM-DD (got "June 1, 2025").',
    ]);
  });

  it("reports a file that does not compile with its line", () => {
    const [problem, ...rest] = checkLegalContent([fixture("broken-syntax.mdx")]);
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^test\/fixtures\/legal\/broken-syntax\.mdx: does not compile: line 10: Unexpected end of file/,
    );
  });

  it("reports frontmatter that is not YAML", () => {
    expect(checkLegalContent([fixture("bad-yaml.mdx")])).toEqual([
      expect.stringMatching(/^test\/fixtures\/legal\/bad-yaml\.mdx: does not compile: frontmatter is not valid YAML/),
    ]);
  });

  it("refuses components the template does not provide and a typed brand name", () => {
    expect(checkLegalContent([fixture("unknown-component.mdx")])).toEqual([
      expect.stringMatching(
        /^test\/fixtures\/legal\/unknown-component\.mdx: uses <CompanyAddress \/>, which the legal template does not provide/,
      ),
      'test/fixtures/legal/unknown-component.mdx: types "Tandem"; use <SiteName /> instead.',
    ]);
  });

  it("refuses two files with one slug", () => {
    expect(checkLegalContent([fixture("duplicate-slug/a.mdx"), fixture("duplicate-slug/b.mdx")])).toEqual([
      'test/fixtures/legal/duplicate-slug/b.mdx: frontmatter field "slug" is "cookie-policy", already used by test/fixtures/legal/duplicate-slug/a.mdx.',
    ]);
  });
});

describe("the record of a policy's changes", () => {
  it("fails a policy whose text changed without a dated entry, naming the file and what to add", () => {
    const [problem, ...rest] = checkLegalContent([fixture("changed-text/privacy-policy.mdx")], { base: () => undefined });
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^test\/fixtures\/legal\/changed-text\/privacy-policy\.mdx: the text changed since its last dated entry \(2026-11-23\)\. Add an entry at the top of "updates" in the frontmatter, with the date the change takes effect and what changed, and set "fingerprint" to [0-9a-f]{12}:\nupdates:\n {2}- date: \d{4}-\d{2}-\d{2}\n {4}summary: <what changed, in a sentence or two>\nfingerprint: [0-9a-f]{12}$/,
    );
  });

  describe("against git, where history is at hand", () => {
    let dir: string;
    let file: string;
    const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { stdio: "ignore" });
    const write = (source: string) => writeFileSync(file, source);
    const policy = readFileSync(fixture("changed-text/privacy-policy.mdx"), "utf8");
    /** The fixture with its text and fingerprint as given, and the entries as given. */
    const version = (text: string, entries: string) => {
      const body = policy.slice(policy.indexOf("\n---\n", 4) + 5).replace("favourite colour", text);
      return `---\ntitle: Privacy Policy\nslug: privacy-policy\ndescription: A policy.\neffectiveDate: 2025-06-01\nupdates:\n${entries}fingerprint: ${textFingerprint(body)}\n---\n${body}`;
    };
    const first = "  - date: 2026-11-23\n    summary: We explain the confirmation e-mail.\n";

    beforeEach(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), "policy-history-"));
      file = path.join(dir, "privacy-policy.mdx");
      git("init", "--quiet");
      write(version("favourite colour", first));
      git("add", ".");
      git("-c", "user.name=Legal", "-c", "user.email=legal@example.com", "commit", "--quiet", "-m", "First");
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const problems = () => checkLegalContent([file], { base: () => "HEAD" }).map((line) => line.replace(/^.*?: /, ""));

    it("passes a new text with a new dated entry", () => {
      write(version("favourite song", `  - date: 2026-12-01\n    summary: We ask for a song.\n${first}`));
      expect(problems()).toEqual([]);
    });

    it("fails a new text whose fingerprint was set but which has no new entry", () => {
      write(version("favourite song", first));
      expect(problems()).toEqual([
        expect.stringMatching(
          /^the text changed since HEAD without a new dated entry; add one at the top of "updates" with the date the change takes effect and what changed\.$/,
        ),
      ]);
    });

    it("fails an earlier entry rewritten to describe the new text", () => {
      write(version("favourite song", "  - date: 2026-11-23\n    summary: We ask for a song.\n"));
      expect(problems()).toEqual([
        'the entry of 2026-11-23 in "updates" was changed or removed since HEAD; dated entries are a record: add a new one at the top instead.',
        'the text changed since HEAD without a new dated entry; add one at the top of "updates" with the date the change takes effect and what changed.',
      ]);
    });
  });

  it.each([
    ["out of order", "  - date: 2026-01-01\n    summary: a\n  - date: 2026-02-01\n    summary: b\n", /entry 2 of "updates" \(2026-02-01\) must be older than the one above it \(2026-01-01\)/],
    ["before the effective date", "  - date: 2025-01-01\n    summary: a\n", /must be later than the effective date \(2025-06-01\)/],
    ["without a summary", "  - date: 2026-01-01\n", /entry 1 of "updates" needs a "summary"/],
    ["with a date in words", "  - date: January 1, 2026\n    summary: a\n", /needs a "date" written as YYYY-MM-DD \(got "January 1, 2026"\)/],
  ])("refuses dated entries %s", (_name, entries, problem) => {
    expect(historyProblems("p.mdx", matter(`---\neffectiveDate: 2025-06-01\nupdates:\n${entries}---\n`).data, "")).toContainEqual(
      expect.stringMatching(problem),
    );
  });
});
