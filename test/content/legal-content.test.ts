import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import matter from "gray-matter";
import { policyFingerprint, policyInForce, policyVersion, textFingerprint } from "../../waitlist/policies";
import { historyProblems, placeholderSummary, suggestedRecord, writtenEntries } from "../../scripts/legal-content/record";
import { fixRecord } from "../../scripts/legal-content/fix";
import { site } from "../../config/site";
import { checkLegalContent } from "../../scripts/legal-content/check";
import { pastClaimWarnings } from "../../scripts/legal-content/claims";
import { checkConsent } from "../../scripts/legal-content/consent";

const root = path.resolve(__dirname, "../..");
const contentDir = path.join(root, "content/legal");
const fixtures = path.resolve(__dirname, "../fixtures/legal");
const fixture = (name: string) => path.join(fixtures, name);
/** The warnings the check gives of config/site.ts's claims today (a claimed date past), as it words them. */
const claimWarnings = () =>
  pastClaimWarnings(site.claims, undefined, readFileSync(path.join(root, "config/site.ts"), "utf8"));

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

  it("names each right and legal basis the Privacy Policy leaves out, or says only under a condition (Art. 13, 21, 77)", () => {
    // The Privacy Policy as it was before issue 52: every section there, but not every right.
    const file = "test/fixtures/legal/missing-rights/privacy-policy.mdx";
    expect(checkLegalContent([fixture("missing-rights/privacy-policy.mdx")]).map((problem) => problem.split(";")[0])).toEqual([
      `${file}: does not name the right to restriction of processing (Art. 18 GDPR)`,
      `${file}: does not name the right to data portability (Art. 20 GDPR)`,
      `${file}: names the right to lodge a complaint with a supervisory authority (Art. 77 GDPR) only under a condition ("Depending on")`,
      `${file}: does not name the right to object, in a section of its own (Art. 21(4) GDPR: clearly and separately from any other information)`,
      `${file}: does not name a legal basis for keeping the invite code a signup came by and ranking inviters`,
      `${file}: does not name a legal basis for keeping a signup's page and campaign tag`,
      // Nor, from before issue 51, how people are let in at launch, nor what the launch mailing service receives.
      `${file}: does not name how people are let in at launch (a wave at a time, by signup order or by invites, ties by who signed up first) and the legal basis for ranking inviters`,
      `${file}: does not name what the launch mailing service receives (each address, that person's own link to leave and their wave, nothing else) and what it keeps`,
      // Nor, from before issue 61, that the launch e-mail is not tracked.
      `${file}: does not name that the launch mailing service sends the launch e-mail with its open and click tracking turned off, where it is named`,
      `${file}: does not name that the launch e-mail is not tracked (no tracking images, no links rewritten, its opening and clicks not recorded)`,
      // Nor, from before issue 60, what a bounce and a spam complaint do.
      `${file}: does not name what a bounce for good and a spam complaint do (no more e-mail, the entry deleted at once), the fingerprint of the inbox kept for <SuppressionRetention />, and the legal basis`,
      // Nor, from before issue 67, the mail provider and its own list, the end of the undeliverable, exports and backups.
      `${file}: does not name the mail provider (<MailProvider />), the suppression list of its own it keeps under its own terms, and how a person gets off it (ask us, and we ask the provider)`,
      `${file}: does not name how long the entry of a member whose e-mail bounced for good is kept after the bounce (<UndeliverableRetention />)`,
      `${file}: does not name what becomes of the founders' exports and of backups (Art. 13(2)(a) GDPR: how long each copy is kept)`,
      `${file}: does not name how long an entry is kept after the wave that let its person in (<LetInRetention />)`,
      `${file}: does not name what a restriction does (no e-mail, no wave, no time limit deletes it, leaving still does)`,
    ]);
  });

  it("fails the Privacy Policy without what it says of the launch e-mail's tracking, in either place (issue 61)", () => {
    const source = readFileSync(path.join(contentDir, "privacy-policy.mdx"), "utf8");
    const dir = mkdtempSync(path.join(os.tmpdir(), "policy-tracking-"));
    const file = path.join(dir, "privacy-policy.mdx");
    /** The policy without the text from `start` to `end`, its fingerprint its own: the statement is all that fails. */
    const problemsWithout = (start: string, end: string) => {
      const from = source.indexOf(start);
      expect(from).toBeGreaterThan(0);
      const edited = source.slice(0, from) + source.slice(source.indexOf(end, from) + end.length);
      const fingerprint = textFingerprint(matter(edited).content);
      writeFileSync(file, edited.replace(/^fingerprint: .*$/m, `fingerprint: "${fingerprint}"`));
      return checkLegalContent([file], { base: () => undefined }).map((problem) => problem.split(";")[0]);
    };
    const shown = path.relative(root, file);
    try {
      // "Cookies and Tracking": no tracking images, no rewritten links, opens and clicks not recorded.
      expect(problemsWithout("**The launch e-mail is not tracked either**", "you click.\n\n")).toEqual([
        `${shown}: does not name that the launch e-mail is not tracked (no tracking images, no links rewritten, its opening and clicks not recorded)`,
      ]);
      // "Sharing of Information", where the launch mailing service is named.
      expect(problemsWithout(" It sends that e-mail with its open and", '"Cookies and Tracking").')).toEqual([
        `${shown}: does not name that the launch mailing service sends the launch e-mail with its open and click tracking turned off, where it is named`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

  it("reports frontmatter that is not YAML with its line, and what to look for", () => {
    expect(checkLegalContent([fixture("bad-yaml.mdx")])).toEqual([
      expect.stringMatching(
        /^test\/fixtures\/legal\/bad-yaml\.mdx: line 4: the frontmatter \(between the "---" lines\) cannot be read \(.*\)\. Look at that line and the one before it/,
      ),
    ]);
  });

  it("reports a summary typed with a colon on its line by its file and line, with the lines to write instead", () => {
    expect(checkLegalContent([fixture("colon-in-summary.mdx")])).toEqual([
      'test/fixtures/legal/colon-in-summary.mdx: line 8 cannot be read: a summary typed on the same line as "summary:" cannot hold a colon, a quotation mark or a #. Replace that line with these two, which can:\n\n    summary: >-\n      We now say who may join: 13 or older.\n\n(What the YAML reader said: incomplete explicit mapping pair; a key node is missed; or followed by a non-tabulated empty line.)',
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

  it("fails a policy whose text changed without a dated entry, naming the file, and the two edits by line", () => {
    const [problem, ...rest] = checkLegalContent([changed], { base: () => undefined });
    expect(rest).toEqual([]);
    expect(problem).toBe(
      [
        "test/fixtures/legal/changed-text/privacy-policy.mdx: the text changed since its last dated entry (2026-11-23). It needs a dated entry for this change, and the new fingerprint. On your own computer, `npm run check:content -- --fix` writes both into the file for you; otherwise:",
        '1. Replace the line "updates:" (line 6) with these lines, then write what changed in place of the placeholder (and set the date the change takes effect, if not today):',
        `updates:\n  - date: ${today}\n    summary: >-\n      <what changed, in a sentence or two>`,
        '2. Replace the line "fingerprint: 0123456789ab" (line 9) with this one:',
        `fingerprint: "${textFingerprint(matter(readFileSync(changed, "utf8")).content)}"`,
      ].join("\n\n"),
    );
  });

  it("takes naming the launch mail tool in the Privacy Policy's frontmatter, or another, as a change of the policy: a dated entry, a new version and fingerprint (issue 61)", () => {
    const source = readFileSync(path.join(contentDir, "privacy-policy.mdx"), "utf8");
    const before = policyInForce(source);
    const dir = mkdtempSync(path.join(os.tmpdir(), "policy-tool-"));
    const file = path.join(dir, "privacy-policy.mdx");
    const check = () => checkLegalContent([file], { base: () => undefined });
    const named = (tool: string) => source.replace(/^fingerprint:/m, `launchMailTool: ${tool}\nfingerprint:`);
    try {
      // Empty, it names none: the policy, and the fingerprint recorded with every signup so far, are as they were.
      writeFileSync(file, named(""));
      expect(check()).toEqual([]);
      expect(policyInForce(readFileSync(file, "utf8"))).toEqual(before);
      // Named, the check (and the build: the same record.ts) fails until a dated entry says so.
      writeFileSync(file, named("Intuit Inc. (Mailchimp, United States)"));
      expect(check()).toEqual([
        expect.stringMatching(
          /privacy-policy\.mdx: the text, or the launch mail tool it names, changed since its last dated entry \(2026-12-02\)\./,
        ),
      ]);
      expect(fixRecord(file, { base: () => undefined })).toMatch(/wrote a new entry dated today and the new fingerprint/);
      writeFileSync(file, readFileSync(file, "utf8").replace(placeholderSummary, "We name our launch mailing service."));
      expect(check()).toEqual([]);
      const after = policyInForce(readFileSync(file, "utf8"));
      expect(after.version).not.toBe(before.version);
      expect(after.fingerprint).not.toBe(before.fingerprint);
      expect(after.fingerprint).toBe(policyFingerprint({ launchMailTool: "Intuit Inc. (Mailchimp, United States)" }, matter(source).content));
      // Another tool is another change.
      writeFileSync(file, readFileSync(file, "utf8").replace("Intuit Inc. (Mailchimp, United States)", "Brevo SAS (France)"));
      expect(check()).toEqual([expect.stringMatching(/the launch mail tool it names, changed since its last dated entry/)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes the printed lines as they are: written where it says, with the summary written, the check passes", () => {
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
      const [, , entry, , fingerprint] = failed.stderr.split("\n\n");
      expect(entry).toMatch(/^updates:\n {2}- date: \d{4}-\d\d-\d\d\n {4}summary: >-\n {6}<what changed/);
      expect(failed.stderr).not.toMatch(/^[+-] |\\"/m);

      // Written as shown, each box over the text of the line it names; the placeholder is refused until written.
      const lines = source.split("\n");
      expect([lines[5], lines[8]]).toEqual(["updates:", "fingerprint: 0123456789ab"]);
      lines[5] = entry!;
      lines[8] = fingerprint!;
      const edited = lines.join("\n");
      writeFileSync(file, edited);
      expect(run().stderr).toMatch(/entry 1 of "updates" still has a placeholder in its "summary"/);
      // Whatever the summary holds (quotation marks, a colon), written where the placeholder was, it is read as written.
      const summary = 'We ask for your "favourite" colour: one word.';
      writeFileSync(file, edited.replace("<what changed, in a sentence or two>", summary));
      const passed = run();
      expect([passed.status, passed.stdout]).toEqual([0, "1 policy and the consent statement checked: nothing to fix.\n"]);
      // A claimed date past (config/site.ts's launch) is warned of after it, by name, and fails nothing.
      const warnings = claimWarnings().map((warning) => `Warning: ${warning}`);
      expect(passed.stderr).toBe(warnings.length === 0 ? "" : `\n${warnings.join("\n\n")}\n`);
      expect(matter(readFileSync(file, "utf8")).data.updates[0].summary).toBe(summary);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("for legal staff without a terminal of their own", () => {
    let dir: string;
    let file: string;
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, ["--import", "tsx", path.join(root, "scripts/check-content.ts"), ...args], {
        encoding: "utf8",
        env: { ...process.env, ...env },
      });
    // An entry wrapped as a person wrapped it, not as the check would: it must come back as it is.
    const source = readFileSync(changed, "utf8").replace(
      "  - date: 2026-11-23\n    summary: We explain the confirmation e-mail.\n",
      "  - date: 2026-11-23\n    summary: >-\n      We explain\n      the confirmation e-mail.\n",
    );
    beforeEach(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), "policy-fix-"));
      file = path.join(dir, "privacy-policy.mdx");
      writeFileSync(file, source);
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("never prints an entry already there to paste back, and keeps it byte for byte where it must (no git line)", () => {
      const [problem] = checkLegalContent([file], { base: () => undefined });
      expect(problem).not.toContain("We explain");
      // Without the file's lines to point at, the whole record to paste: its past entries as the file has them.
      expect(suggestedRecord([], "0123456789ab", writtenEntries(source))).toBe(
        `updates:\n  - date: ${today}\n    summary: >-\n      <what changed, in a sentence or two>\n  - date: 2026-11-23\n    summary: >-\n      We explain\n      the confirmation e-mail.\nfingerprint: "0123456789ab"`,
      );
    });

    it("--fix writes today's entry on top and the fingerprint, changes no other line, and leaves only the summary to write", () => {
      const fixed = run(["--fix", file]);
      expect(fixed.status).toBe(1);
      expect(fixed.stdout).toMatch(
        /privacy-policy\.mdx: wrote a new entry dated today and the new fingerprint\. Now write what changed in place of "<what changed, in a sentence or two>" on line 9\./,
      );
      const written = readFileSync(file, "utf8");
      const body = matter(written).content;
      expect(written.split("\n")).toEqual(
        source
          .replace("updates:\n", `updates:\n  - date: ${today}\n    summary: >-\n      <what changed, in a sentence or two>\n`)
          .replace(/^fingerprint: .*$/m, `fingerprint: "${textFingerprint(body)}"`)
          .split("\n"),
      );
      // What is left is the summary, and only that.
      expect(fixed.stderr).toMatch(/^[^\n]*entry 1 of "updates" still has a placeholder in its "summary"[^\n]*\n\n1 problem\(s\)/);
      writeFileSync(file, written.replace("<what changed, in a sentence or two>", "We ask for your favourite colour: one word."));
      expect(run([file]).status).toBe(0);
      // A second --fix on a record already right writes nothing.
      expect(run(["--fix", file]).stdout).toMatch(/^--fix: nothing to write\./);
    });

    it("writes its problems to the pull request's job summary, the lines to paste in a box", () => {
      const summary = path.join(dir, "summary.md");
      expect(run([file], { GITHUB_STEP_SUMMARY: summary }).status).toBe(1);
      const markdown = readFileSync(summary, "utf8");
      expect(markdown).toMatch(/^### Policies and consent statement: 1 problem to fix\n\nNothing is published until they are fixed\./);
      expect(markdown).toContain(`#### \`${path.relative(root, file)}\`\n\nThe text changed since its last dated entry (2026-11-23).`);
      expect(markdown).toContain(
        `(line 6) with these lines, then write what changed in place of the placeholder (and set the date the change takes effect, if not today):\n\n\`\`\`yaml\nupdates:\n  - date: ${today}\n    summary: >-`,
      );
      // After the problems, a warning for each claimed date past (config/site.ts's launch), which fails nothing.
      expect(markdown).toMatch(/\(line 11\) with this one:\n\n```yaml\nfingerprint: "[0-9a-f]{12}"\n```\n(\n### \d+ warnings?: [\s\S]*)?$/);
      const warnings = claimWarnings();
      for (const warning of warnings) {
        expect(markdown).toContain(`### ${warnings.length} warning`);
        expect(markdown).toContain(warning.replace(/^config\/site\.ts: c/, "C").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
      }
      writeFileSync(file, source.replace(/^fingerprint: .*$/m, `fingerprint: ${textFingerprint(matter(source).content)}`));
      // A run that passes says so too, after the first.
      run([file], { GITHUB_STEP_SUMMARY: summary });
      expect(readFileSync(summary, "utf8")).toMatch(
        /### Policies and consent statement\n\n1 policy and the consent statement checked: nothing to fix\.\n(\n### \d+ warnings?: [\s\S]*)?$/,
      );
    });
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

    const problems = () =>
      checkLegalContent([file], { base: () => ({ revision: "HEAD", name: "the main branch" }) }).map((line) =>
        line.replace(/^.*?: /, ""),
      );

    it("passes a new text with a new dated entry", () => {
      write(version("favourite song", `  - date: 2026-11-24\n    summary: We ask for a song.\n${first}`));
      expect(problems()).toEqual([]);
    });

    it("passes a second change on the same day, on top of the first", () => {
      write(version("favourite song", `  - date: 2026-11-23\n    summary: We ask for a song.\n${first}`));
      expect(problems()).toEqual([]);
    });

    it("fails a new text whose fingerprint was set but which has no new entry, naming the base in words", () => {
      write(version("favourite song", first));
      expect(problems()).toEqual([
        'the text is not the one on the main branch, but "updates" has no new entry at the top; add one with the date the change takes effect and what changed.',
      ]);
    });

    it("fails a launch mail tool named with its fingerprint copied but no new entry, and passes it with one (issue 61)", () => {
      const tool = "Intuit Inc. (Mailchimp, United States)";
      const withTool = (entries: string) => {
        const source = version("favourite colour", entries);
        const fingerprint = policyFingerprint({ launchMailTool: tool }, matter(source).content);
        return source.replace(/^fingerprint: .*$/m, `launchMailTool: ${tool}\nfingerprint: "${fingerprint}"`);
      };
      write(withTool(first));
      expect(problems()).toEqual([
        'the launch mail tool it names (launchMailTool) is not the one on the main branch, but "updates" has no new entry at the top; add one with the date the change takes effect and what changed.',
      ]);
      write(withTool(`  - date: 2026-11-24\n    summary: We name our launch mailing service.\n${first}`));
      expect(problems()).toEqual([]);
    });

    it("fails an earlier entry rewritten to describe the new text as one problem, its one cause", () => {
      write(version("favourite song", "  - date: 2026-11-23\n    summary: We ask for a song.\n"));
      expect(problems()).toEqual([
        'the entry of 2026-11-23 under "updates" is not as it is on the main branch. Entries already there are a record, so put it back word for word, and add a new entry at the top with the date the change takes effect and what changed.',
      ]);
    });

    it("says a text changed without an entry once, with the lines to paste, when the fingerprint was not copied either", () => {
      const edited = version("favourite colour", first).replace("favourite colour", "favourite song");
      write(edited);
      expect(problems()).toEqual([expect.stringMatching(/^the text changed since its last dated entry \(2026-11-23\)\./)]);
    });

    it("speaks no git: no HEAD, no commit hash, in any message", () => {
      write(version("favourite song", "  - date: 2026-11-23\n    summary: We ask for a song.\n"));
      const printed = checkLegalContent([file], { base: () => ({ revision: "HEAD", name: "the main branch" }) });
      expect(printed.join("\n")).not.toMatch(/\bHEAD\b|\b[0-9a-f]{12}\b/);
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

  const check = (consent: typeof recorded) =>
    checkConsent({ consent, file, base: () => ({ revision: "HEAD", name: "your last commit" }) });

  it("passes the wording the file recorded", () => {
    expect(check(recorded)).toEqual([]);
  });

  it("fails a new wording under the recorded version, even with its fingerprint copied in, and passes it with a new version", () => {
    const changed = { ...recorded, statement: `${statement} Or a change to our Terms.` };
    const copied = { ...changed, fingerprint: textFingerprint(changed.statement) };
    expect(check(copied)).toEqual([
      expect.stringMatching(/^config\/site\.ts: the wording of waitlist\.consent\.statement changed since your last commit, but its version \(2026-11-25\) did not\./),
    ]);
    expect(check({ ...copied, version: new Date().toISOString().slice(0, 10) })).toEqual([]);
  });
});
