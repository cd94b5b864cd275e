import { readdirSync } from "node:fs";
import path from "node:path";
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
