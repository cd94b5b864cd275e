import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { entryProblems, fingerprintProblem } from "./record";
import { duplicateSlugProblems, frontmatterProblems, sectionProblems, statementProblems } from "./rules";
import { legalShortcodes } from "../../src/components/legal-shortcodes";
import { site } from "../../config/site";
import { readEnv, siteSettings } from "../../config/env";
import { baseRevision, historySince, type Base } from "./history";

const root = path.resolve(__dirname, "../..");

export interface MdxFacts {
  file: string;
  frontmatter: Record<string, unknown> | null;
  body: string;
  headings: string[];
  components: string[];
  error: string | null;
  /** Where and why the frontmatter could not be read as YAML. */
  yamlError: { line: number | null; reason: string; text: string | null } | null;
}

/** What the MDX compiler makes of the files: their facts, read the way gatsby-plugin-mdx reads them. */
export function mdxFacts(files: readonly string[]): MdxFacts[] {
  const output = execFileSync(process.execPath, [path.join(root, "scripts/mdx-facts.mjs"), ...files], {
    encoding: "utf8",
  });
  return JSON.parse(output) as MdxFacts[];
}

/**
 * Frontmatter YAML cannot read, in legal staff's words: the file, the line, and, for the usual cause (a summary
 * typed after "summary:" that holds a colon), the lines to write instead.
 */
function yamlProblem(file: string, { line, reason, text }: NonNullable<MdxFacts["yamlError"]>): string {
  const summary = text === null ? null : /^(\s*)summary:\s*(\S.*)$/.exec(text);
  if (line !== null && summary) {
    return `${file}: line ${line} cannot be read: a summary typed on the same line as "summary:" cannot hold a colon, a quotation mark or a #. Replace that line with these two, which can:\n\n${summary[1]}summary: >-\n${summary[1]}  ${summary[2]!.replace(/^"(.*)"$/, "$1")}\n\n(What the YAML reader said: ${reason}.)`;
  }
  const at = line === null ? "" : `line ${line}: `;
  return `${file}: ${at}the frontmatter (between the "---" lines) cannot be read (${reason}). Look at that line and the one before it: a missing space after a colon, an indent out of line, or a quotation mark left open.`;
}

// The wrapper MDX puts around a policy is no component a policy writes.
const allowedComponents = new Set(Object.keys(legalShortcodes).filter((name) => name !== "wrapper"));

/**
 * Everything that can be wrong with legal MDX files, one message per problem,
 * each naming the file: it does not compile, its frontmatter is incomplete,
 * a required section is missing or out of order, a right or legal basis the
 * Privacy Policy must name is not there (or only under a condition), a slug is taken twice, it
 * uses a component the template does not provide, it types the brand or
 * contact address instead of using <SiteName /> and <ContactEmail />, or its
 * text changed without a dated entry (policy-history.ts, when git knows the
 * file's earlier version: `base` gives the revision to compare with).
 */
export function checkLegalContent(
  files: readonly string[],
  { base = baseRevision }: { base?: (file: string) => Base | undefined } = {},
): string[] {
  const problems: string[] = [];
  const slugs: { file: string; slug: string }[] = [];
  for (const result of mdxFacts(files)) {
    const file = path.relative(root, result.file);
    if (result.yamlError) {
      problems.push(yamlProblem(file, result.yamlError));
      continue;
    }
    if (result.error) {
      problems.push(`${file}: does not compile: ${result.error}`);
      continue;
    }
    const source = readFileSync(result.file, "utf8");
    problems.push(...frontmatterProblems(file, result.frontmatter));
    problems.push(...entryProblems(file, result.frontmatter));
    // One cause, one problem: an entry rewritten is the cause to fix first; a text changed without an entry is
    // said once, by the fingerprint (with the lines to paste), or by history when the fingerprint was copied in.
    const revision = base(result.file);
    const since = revision
      ? historySince(result.file, file, { frontmatter: result.frontmatter ?? {}, body: result.body }, revision)
      : {};
    const unrecorded =
      since.rewritten ?? fingerprintProblem(file, result.frontmatter, result.body, source) ?? since.unrecorded;
    if (unrecorded) problems.push(unrecorded);
    const slug = result.frontmatter?.slug;
    if (typeof slug === "string") {
      slugs.push({ file, slug });
      problems.push(...sectionProblems(file, slug, result.headings));
      problems.push(...statementProblems(file, slug, result.body));
    }
    for (const name of result.components) {
      if (!allowedComponents.has(name)) {
        problems.push(
          `${file}: uses <${name} />, which the legal template does not provide (available: ${[...allowedComponents].join(", ")}).`,
        );
      }
    }
    for (const [literal, component] of [
      [site.name, "<SiteName />"],
      [siteSettings(readEnv()).contactEmail, "<ContactEmail />"],
    ] as const) {
      if (source.includes(literal)) problems.push(`${file}: types "${literal}"; use ${component} instead.`);
    }
  }
  problems.push(...duplicateSlugProblems(slugs));
  return problems;
}
