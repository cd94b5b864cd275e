import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { duplicateSlugProblems, frontmatterProblems, historyProblems, sectionProblems } from "../../config/legal-rules";
import { legalShortcodes } from "../../src/components/legal-shortcodes";
import { site } from "../../config/site";
import { readEnv, siteSettings } from "../../config/env";
import { baseRevision, historySince } from "./history";

const root = path.resolve(__dirname, "../..");

interface MdxFacts {
  file: string;
  frontmatter: Record<string, unknown> | null;
  body: string;
  headings: string[];
  components: string[];
  error: string | null;
}

const allowedComponents = new Set(Object.keys(legalShortcodes));

/**
 * Everything that can be wrong with legal MDX files, one message per problem,
 * each naming the file: it does not compile, its frontmatter is incomplete,
 * a required section is missing or out of order, a slug is taken twice, it
 * uses a component the template does not provide, it types the brand or
 * contact address instead of using <SiteName /> and <ContactEmail />, or its
 * text changed without a dated entry (policy-history.ts, when git knows the
 * file's earlier version: `base` gives the revision to compare with).
 */
export function checkLegalContent(
  files: readonly string[],
  { base = baseRevision }: { base?: (file: string) => string | undefined } = {},
): string[] {
  const output = execFileSync(process.execPath, [path.join(root, "scripts/mdx-facts.mjs"), ...files], {
    encoding: "utf8",
  });
  const results = JSON.parse(output) as MdxFacts[];
  const problems: string[] = [];
  const slugs: { file: string; slug: string }[] = [];
  for (const result of results) {
    const file = path.relative(root, result.file);
    if (result.error) {
      problems.push(`${file}: does not compile: ${result.error}`);
      continue;
    }
    problems.push(...frontmatterProblems(file, result.frontmatter));
    problems.push(...historyProblems(file, result.frontmatter, result.body));
    const revision = base(result.file);
    if (revision)
      problems.push(
        ...historySince(result.file, file, { frontmatter: result.frontmatter ?? {}, body: result.body }, revision),
      );
    const slug = result.frontmatter?.slug;
    if (typeof slug === "string") {
      slugs.push({ file, slug });
      problems.push(...sectionProblems(file, slug, result.headings));
    }
    for (const name of result.components) {
      if (!allowedComponents.has(name)) {
        problems.push(
          `${file}: uses <${name} />, which the legal template does not provide (available: ${[...allowedComponents].join(", ")}).`,
        );
      }
    }
    const source = readFileSync(result.file, "utf8");
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
