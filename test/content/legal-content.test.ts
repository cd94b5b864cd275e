import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import matter from "gray-matter";
import { historyProblems, policyVersion, textFingerprint } from "../../config/legal-rules";
import { checkLegalContent } from "../../scripts/legal-content/check";
import { checkConsent } from "../../scripts/legal-content/consent";

const root = path.resolve(__dirname, "../..");
const contentDir = path.join(root, "content/legal");
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
    const problems = checkLegalContent(files);
    // Each problem names the file and what to fix; `npm run check:content` prints them plainly, ready to paste.
    if (problems.length > 0) throw new Error(`Run npm run check:content.\n\n${problems.join("\n\n")}`);
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
  const today = new Date().toISOString().slice(0, 10);
  const changed = fixture("changed-text/privacy-policy.mdx");

  it("fails a policy whose text changed without a dated entry, naming the file and what to add", () => {
    const [problem, ...rest] = checkLegalContent([changed], { base: () => undefined });
    expect(rest).toEqual([]);
    expect(problem).toMatch(
      /^test\/fixtures\/legal\/changed-text\/privacy-policy\.mdx: the text changed since its last dated entry \(2026-11-23\)\. Replace "updates" and "fingerprint" in its frontmatter with these lines, then write what changed in place of the placeholder/,
    );
    expect(problem!.slice(problem!.indexOf("\n\n") + 2)).toBe(
      `updates:\n  - date: ${today}\n    summary: >-\n      <what changed, in a sentence or two>\n  - date: 2026-11-23\n    summary: >-\n      We explain the confirmation e-mail.\nfingerprint: ${textFingerprint(matter(readFileSync(changed, "utf8")).content)}`,
    );
  });

  it("takes the printed lines as they are: pasted over the frontmatter's, with the summary written, the check passes", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "policy-paste-"));
    try {
      const file = path.join(dir, "privacy-policy.mdx");
      const source = readFileSync(changed, "utf8");
      writeFileSync(file, source);
      const run = () =>
        spawnSync(process.execPath, ["--import", "tsx", path.join(root, "scripts/check-content.ts"), file], {
          encoding: "utf8",
        });
      const failed = run();
      expect(failed.status).toBe(1);
      // Plain text, as legal staff read it in a terminal: no diff markers, no escaped quotes.
      const printed = failed.stderr.slice(failed.stderr.indexOf("\n\n") + 2, failed.stderr.lastIndexOf("\n\n"));
      expect(printed).toMatch(/^updates:\n {2}- date: /);
      expect(printed).not.toMatch(/^[+-] |\\"/m);

      // Pasted as shown: the lines replace "updates" and "fingerprint", and the placeholder is refused until written.
      const pasted = source.replace(/^updates:\n(?: {2}.*\n)*fingerprint: .*$/m, printed);
      writeFileSync(file, pasted);
      expect(run().stderr).toMatch(/entry 1 of "updates" still has a placeholder in its "summary"/);
      // Whatever the summary holds (quotation marks, a colon), written where the placeholder was, it is read as written.
      const summary = 'We ask for your "favourite" colour: one word.';
      writeFileSync(file, pasted.replace("<what changed, in a sentence or two>", summary));
      const passed = run();
      expect([passed.status, passed.stdout]).toEqual([0, "1 policy and the consent statement checked: nothing to fix.\n"]);
      expect(matter(readFileSync(file, "utf8")).data.updates[0].summary).toBe(summary);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
      write(version("favourite song", `  - date: 2026-11-24\n    summary: We ask for a song.\n${first}`));
      expect(problems()).toEqual([]);
    });

    it("passes a second change on the same day, on top of the first", () => {
      write(version("favourite song", `  - date: 2026-11-23\n    summary: We ask for a song.\n${first}`));
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
    ["out of order", "  - date: 2026-01-01\n    summary: a\n  - date: 2026-02-01\n    summary: b\n", /entry 2 of "updates" \(2026-02-01\) must not be newer than the one above it \(2026-01-01\)/],
    ["dated after today", "  - date: 2999-01-01\n    summary: a\n", /entry 1 of "updates" \(2999-01-01\) is after today/],
    ["with the suggested placeholder", '  - date: 2026-01-01\n    summary: "<what changed, in a sentence or two>"\n', /entry 1 of "updates" still has a placeholder/],
    ["with a summary left to do", "  - date: 2026-01-01\n    summary: TODO\n", /entry 1 of "updates" still has a placeholder/],
    // Quoted, then more words with a colon: YAML reads a short summary and a field named after the rest.
    ['with a summary YAML split in two', '  - date: 2026-01-01\n    summary: "Changes" now says: more\n', /entry 1 of "updates" has a field "now says" besides "date" and "summary"/],
    ["before the effective date", "  - date: 2025-01-01\n    summary: a\n", /must be later than the effective date \(2025-06-01\)/],
    ["without a summary", "  - date: 2026-01-01\n", /entry 1 of "updates" needs a "summary"/],
    ["with a date in words", "  - date: January 1, 2026\n    summary: a\n", /needs a "date" written as YYYY-MM-DD \(got "January 1, 2026"\)/],
  ])("refuses dated entries %s", (_name, entries, problem) => {
    expect(historyProblems("p.mdx", matter(`---\neffectiveDate: 2025-06-01\nupdates:\n${entries}---\n`).data, "")).toContainEqual(
      expect.stringMatching(problem),
    );
  });
});

describe("the version a signup records", () => {
  const versionOf = (entries: string) => policyVersion(matter(`---\neffectiveDate: 2025-06-01\nupdates:\n${entries}---\n`).data);

  it("is the date of the newest change, numbered within its day from the first", () => {
    const first = "  - date: 2026-11-23\n    summary: a\n";
    expect(versionOf(first)).toBe("2026-11-23");
    expect(versionOf(`  - date: 2026-11-23\n    summary: b\n${first}`)).toBe("2026-11-23.2");
    expect(versionOf(`  - date: 2026-11-23\n    summary: c\n  - date: 2026-11-23\n    summary: b\n${first}`)).toBe("2026-11-23.3");
    expect(versionOf(`  - date: 2026-11-24\n    summary: d\n  - date: 2026-11-23\n    summary: b\n${first}`)).toBe("2026-11-24");
  });

  it("allows several changes a day, and still no newer one below an older one", () => {
    const data = matter(`---\neffectiveDate: 2025-06-01\nupdates:\n  - date: 2026-11-23\n    summary: b\n  - date: 2026-11-23\n    summary: a\n---\n`).data;
    expect(historyProblems("p.mdx", { ...data, fingerprint: textFingerprint("") }, "")).toEqual([]);
  });
});

describe("the consent statement's record against git", () => {
  let dir: string;
  let file: string;
  const statement = "We'll e-mail you when early access opens: nothing else.";
  const recorded = { version: "2026-11-25", statement, fingerprint: textFingerprint(statement) };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "consent-history-"));
    file = path.join(dir, "site.ts");
    // config/site.ts as it was: the version and fingerprint of the wording then published.
    writeFileSync(
      file,
      `export const site = {\n  waitlist: {\n    consent: {\n      version: "${recorded.version}",\n      fingerprint: "${recorded.fingerprint}",\n      statement: ${JSON.stringify(statement)},\n    },\n  },\n};\n`,
    );
    execFileSync("git", ["-C", dir, "init", "--quiet"]);
    execFileSync("git", ["-C", dir, "add", "."]);
    execFileSync("git", ["-C", dir, "-c", "user.name=Legal", "-c", "user.email=legal@example.com", "commit", "--quiet", "-m", "First"]);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const check = (consent: typeof recorded) => checkConsent({ consent, file, base: () => "HEAD" });

  it("passes the wording the file recorded", () => {
    expect(check(recorded)).toEqual([]);
  });

  it("fails a new wording under the recorded version, even with its fingerprint copied in, and passes it with a new version", () => {
    const changed = { ...recorded, statement: `${statement} Or a change to our Terms.` };
    const copied = { ...changed, fingerprint: textFingerprint(changed.statement) };
    expect(check(copied)).toEqual([
      expect.stringMatching(/^config\/site\.ts: the wording of waitlist\.consent\.statement changed since .*, but its version \(2026-11-25\) did not\./),
    ]);
    expect(check({ ...copied, version: new Date().toISOString().slice(0, 10) })).toEqual([]);
  });
});
