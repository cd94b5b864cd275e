import { site } from "../../config/site";
import {
  launchMailToolPattern,
  maxDescription,
  requiredSections,
  requiredStatements,
  type LegalFrontmatter,
} from "../../config/legal-rules";
import { isoDate, namedIn } from "../../waitlist/policies";

/*
 * The checks of what a legal MDX file must hold (config/legal-rules.ts has the rules as data): its frontmatter, the
 * spec's sections in the spec's order, one slug a file. Pure functions shared by gatsby-node (the build fails) and
 * the content check (the pull request fails); each problem names the file and what to fix.
 */

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** `controller`: a name and a postal address on one line, as CONTROLLER_NAME and CONTROLLER_ADDRESS allow. */
const controllerPattern = /^[^<>{}\p{Cc}]{1,500}$/u;

/**
 * Why the controller and the host a public build's settings name (CONTROLLER_NAME and CONTROLLER_ADDRESS,
 * HOSTING_PROVIDER or Netlify) are not the ones the Privacy Policy's frontmatter records (`controller`,
 * `hostingProvider`): the page shows the settings, so a change of them is a change of the policy, and the fingerprint
 * covers the frontmatter's, which a change must come with a dated entry to (issue 67, L8).
 */
export function namedSettingsProblems(
  frontmatter: unknown,
  {
    controllerName,
    controllerAddress,
    hostingProvider,
  }: { controllerName: string; controllerAddress: string; hostingProvider: string },
): string[] {
  const settings = [
    ["controller", `${controllerName}, ${controllerAddress}`, "CONTROLLER_NAME and CONTROLLER_ADDRESS"],
    ["hostingProvider", hostingProvider, "HOSTING_PROVIDER (Netlify on a build there)"],
  ] as const;
  return settings.flatMap(([field, value, from]) => {
    const recorded = namedIn(frontmatter, field);
    if (recorded === value) return [];
    const now = recorded === undefined ? "records none" : `records ${recorded}`;
    return [
      `The Privacy Policy shows ${value} (${from}), but its frontmatter's "${field}" ${now}. A change of who the policy names is a change of the policy: write "${field}: ${value}" in content/legal/privacy-policy.mdx, with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), or set the settings back.`,
    ];
  });
}

/** Problems with a file's frontmatter, each naming the file and the field. */
export function frontmatterProblems(file: string, data: unknown): string[] {
  const fields = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  const problems: string[] = [];
  const text = (field: keyof LegalFrontmatter) => {
    const value = fields[field];
    if (value === undefined || value === null || value === "") {
      problems.push(`${file}: frontmatter field "${field}" is missing.`);
      return null;
    }
    if (typeof value !== "string" || value.trim() === "") {
      problems.push(`${file}: frontmatter field "${field}" must be text.`);
      return null;
    }
    return value.trim();
  };
  const title = text("title");
  const slug = text("slug");
  const linked = Object.values(site.legalPages).find((page) => page.slug === slug);
  if (linked && title !== null && title !== linked.title) {
    problems.push(
      `${file}: frontmatter field "title" must be "${linked.title}", the name the site's links to it use (config/site.ts, legalPages; change both together) (got "${title}").`,
    );
  }
  if (slug !== null && !slugPattern.test(slug)) {
    problems.push(
      `${file}: frontmatter field "slug" must be lowercase words joined by hyphens, like "privacy-policy" (got "${slug}").`,
    );
  }
  const description = text("description");
  if (description !== null && description.length > maxDescription) {
    problems.push(
      `${file}: frontmatter field "description" is ${description.length} characters; keep it to ${maxDescription} or fewer.`,
    );
  }
  // The names the Privacy Policy's page shows (the launch mail tool, the mail provider, the controller with its postal
  // address, the host): its frontmatter's, and only there, each on one line.
  const named = [
    ["launchMailTool", "launch mail tool", "Intuit Inc. (Mailchimp, United States)"],
    ["mailProvider", "mail provider", "Amazon Web Services, Inc. (Amazon SES, United States)"],
    ["controller", "controller", "Tandem Labs GmbH, Example Street 1, 10115 Berlin, Germany"],
    ["hostingProvider", "hosting provider", "Hetzner Online GmbH (Germany)"],
  ] as const;
  for (const [field, what, example] of named) {
    const name = fields[field];
    if (name === undefined || name === null || name === "") continue;
    if (slug !== site.legalPages.privacyPolicy.slug) {
      problems.push(
        `${file}: frontmatter field "${field}" belongs to the ${site.legalPages.privacyPolicy.title} alone, which names the ${what}; remove it here.`,
      );
    } else if (
      typeof name !== "string" ||
      !(field === "controller" ? controllerPattern : launchMailToolPattern).test(name.trim())
    ) {
      const whose = field === "controller" ? "legal name and postal address" : "legal name and country";
      const most = field === "controller" ? 500 : 200;
      problems.push(
        `${file}: frontmatter field "${field}" must be the ${what}'s ${whose} on one line, such as ${example}: up to ${most} characters, no < > { } (got ${JSON.stringify(name)}).`,
      );
    }
  }
  const date = fields.effectiveDate;
  if (date === undefined || date === null || date === "") {
    problems.push(`${file}: frontmatter field "effectiveDate" is missing.`);
  } else if (isoDate(date) === null) {
    problems.push(
      `${file}: frontmatter field "effectiveDate" must be a date written as YYYY-MM-DD (got "${String(date)}").`,
    );
  }
  return problems;
}

/** Positions (into `values`) of one longest strictly increasing subsequence. */
function longestIncreasing(values: readonly number[]): Set<number> {
  const best: number[][] = [];
  values.forEach((value, index) => {
    let chain: number[] = [];
    for (let before = 0; before < index; before++) {
      if (values[before]! < value && best[before]!.length > chain.length) chain = best[before]!;
    }
    best[index] = [...chain, index];
  });
  return new Set(best.reduce<number[]>((longest, chain) => (chain.length > longest.length ? chain : longest), []));
}

/**
 * Problems with a policy's `##` headings: every required section must be
 * present, in the spec's order. Files whose slug has no rules (a future
 * policy) pass.
 */
export function sectionProblems(file: string, slug: string, headings: readonly string[]): string[] {
  const rules = requiredSections[slug];
  if (!rules) return [];
  const found = rules.map((rule) => ({ rule, at: headings.findIndex((heading) => rule.heading.test(heading)) }));
  const present = found.filter(({ at }) => at >= 0);
  const inOrder = longestIncreasing(present.map(({ at }) => at));
  const problems: string[] = [];
  for (const { rule, at } of found) {
    if (at < 0) {
      problems.push(`${file}: required section "${rule.name}" is missing; add an "## " heading for it.`);
      continue;
    }
    const position = present.findIndex((entry) => entry.rule === rule);
    if (inOrder.has(position)) continue;
    const next = present.find((entry, index) => index > position && inOrder.has(index));
    const previous = [...present]
      .reverse()
      .find((entry, index) => present.length - 1 - index < position && inOrder.has(present.length - 1 - index));
    const where = next ? `before "## ${headings[next.at]}"` : `after "## ${headings[previous!.at]}"`;
    problems.push(
      `${file}: required section "${rule.name}" ("## ${headings[at]}") is out of the spec's order; move it ${where}.`,
    );
  }
  return problems;
}

/** Problems with slugs shared by two files. */
export function duplicateSlugProblems(files: readonly { file: string; slug: string }[]): string[] {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const { file, slug } of files) {
    const first = seen.get(slug);
    if (first) problems.push(`${file}: frontmatter field "slug" is "${slug}", already used by ${first}.`);
    else seen.set(slug, file);
  }
  return problems;
}

/** The paragraphs and list items of an MDX text, each on one line, and its `##` headings. */
function blocksOf(body: string): { paragraphs: string[]; headings: string[] } {
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  const headings = lines.flatMap((line) => /^##\s+(.*?)\s*$/.exec(line)?.[1] ?? []);
  const paragraphs = body
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n|\n(?=\s*[-*] )/)
    .map((block) => block.replace(/\s+/g, " ").trim())
    .filter((block) => block !== "" && !block.startsWith("#"));
  return { paragraphs, headings };
}

/**
 * Problems with what a policy says (config/legal-rules.ts, requiredStatements): each right or legal basis it does not
 * name, or names only under a condition, and the right to object when no section of its own sets it out. Files whose
 * slug has no such rules pass.
 */
export function statementProblems(file: string, slug: string, body: string): string[] {
  const rules = requiredStatements[slug];
  if (!rules) return [];
  const { paragraphs, headings } = blocksOf(body);
  const problems: string[] = [];
  for (const rule of rules) {
    const candidates = rule.heading ? headings : paragraphs;
    const saying = candidates.filter((block) => rule.says.every((pattern) => pattern.test(block)));
    if (saying.length === 0) {
      problems.push(`${file}: does not name ${rule.name}; ${rule.fix}`);
      continue;
    }
    const condition = rule.unconditional;
    if (condition && saying.every((block) => condition.test(block))) {
      const words = condition.exec(saying[0]!)![0];
      problems.push(`${file}: names ${rule.name} only under a condition ("${words}"); ${rule.fix}`);
    }
  }
  return problems;
}
