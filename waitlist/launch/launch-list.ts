import * as cheerio from "cheerio";
import matter from "gray-matter";
import { projectFolders } from "../../config/folders";
import { site } from "../../config/site";
import { launchMailToolOf, readPolicySource } from "../policies";
import type { Signup } from "../signup-life/types";
import { whyNotMailed } from "../signup-life/rules";

/*
 * What the launch mail tool receives (export --launch, let-in --launch-tool): for each confirmed signup, the address,
 * that person's own one-click leave link and the wave they were let in with, and nothing else. The Privacy Policy
 * says so (Sharing of Information), and test/content/policy-promises.test.ts holds its sentence to these columns.
 * Everything else a signup holds is the founders' own record (export --record), never a file to import.
 */

/** A refusal a founder can act on: the command says it as it is, and exits as for a wrong option. */
export class LaunchToolError extends Error {}

/** The launch list's columns, in this order. */
export const launchColumns = ["email", "leaveUrl", "wave"] as const;

export type LaunchRow = { email: string; leaveUrl: string; wave: number | null };

/**
 * Who is on the launch list: those let in for the tool to mail (let-in --launch-tool, a wave at a time), in the order
 * they signed up (the store's); with `wave`, only the people of that wave (`export --launch --wave N`). Nobody in no
 * wave (the Privacy Policy gives the tool those let in, each with their wave), nobody let-in mailed itself (the tool
 * would mail them "You're in" a second time), and nobody the rule says the mail may not reach now (restricted, bounced
 * for good since), nor those `held` (their keys: suppressions.ts): `left` counts them, for the founder to hear.
 */
export function launchList(
  signups: readonly Signup[],
  leaveUrlOf: (signup: Signup) => string,
  { wave, held = new Set() }: { wave?: number; held?: ReadonlySet<string> } = {},
): LaunchRow[] & { left: number } {
  const inWave = signups.filter(
    (signup) =>
      signup.confirmedAt !== null && signup.letInMail === "launch-tool" && (wave === undefined || signup.wave === wave),
  );
  const mailable = inWave.filter((signup) => whyNotMailed("wave", signup) === undefined && !held.has(signup.emailKey));
  const rows = mailable.map((signup) => ({ email: signup.email, leaveUrl: leaveUrlOf(signup), wave: signup.wave }));
  return Object.assign(rows, { left: inWave.length - mailable.length });
}

/** How long the site may take to answer for its Privacy Policy. */
const pageTimeoutMs = 15_000;

/** Where the site serves its Privacy Policy (SITE_URL, and the policy's slug). */
export const privacyPolicyPage = (siteUrl: string) => `${siteUrl}/${site.legalPages.privacyPolicy.slug}/`;

/**
 * The launch mail tools a Privacy Policy page names: the text of each element marked data-launch-mail-tool, which
 * <LaunchMailTool /> renders once the policy's frontmatter names one (src/components/legal-shortcodes.tsx); none
 * while it names none, and one however often the policy says it.
 */
export function launchToolsOnPage(html: string): string[] {
  const $ = cheerio.load(html);
  const names = $("[data-launch-mail-tool]")
    .map((_, element) => $(element).text().replace(/\s+/g, " ").trim())
    .get()
    .filter((name) => name !== "");
  return [...new Set(names)];
}

/**
 * The launch mail tool the Privacy Policy the site serves names (<LaunchMailTool />, from the policy's frontmatter):
 * the list goes to no tool before the public policy names it, so a command that writes the list asks the site
 * first, and refuses before it reads or writes anything when the page cannot be read, names no tool, or names
 * another than this checkout's policy does (`checkout`, the text of content/legal/privacy-policy.mdx here): one of
 * the two is not the policy in force. One request to SITE_URL.
 */
export async function launchTool(
  siteUrl: string,
  checkout: string | undefined = readPolicySource(projectFolders.legal, site.legalPages.privacyPolicy.slug),
): Promise<string> {
  const page = privacyPolicyPage(siteUrl);
  const nameIt =
    'name it in the Privacy Policy\'s frontmatter (content/legal/privacy-policy.mdx, the field launchMailTool: its legal name and country, such as Intuit Inc. (Mailchimp, United States)), with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), deploy the site, and run this again; nothing was written.';
  let html: string;
  try {
    const answer = await fetch(page, {
      headers: { Accept: "text/html", "Cache-Control": "no-cache" },
      signal: AbortSignal.timeout(pageTimeoutMs),
    });
    if (!answer.ok) throw new Error(`it answered ${answer.status}`);
    html = await answer.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new LaunchToolError(
      `The Privacy Policy at ${page} could not be read (${why}), so which launch mail tool it names is not known, and the list goes to none it does not name. Check that SITE_URL is the site's address and the site is up, and run this again; nothing was written.`,
    );
  }
  const served = launchToolsOnPage(html);
  if (served.length === 0) {
    throw new LaunchToolError(
      `The Privacy Policy at ${page} names no launch mail tool, and the list goes to none before the policy names it: ${nameIt}`,
    );
  }
  if (served.length > 1) {
    throw new LaunchToolError(
      `The Privacy Policy at ${page} names more than one launch mail tool (${served.join("; ")}); the list goes to one only: ${nameIt}`,
    );
  }
  const tool = served[0]!;
  const own = checkout === undefined ? undefined : launchMailToolOf(matter(checkout).data);
  if (own !== undefined && own !== tool) {
    throw new LaunchToolError(
      `The Privacy Policy at ${page} names ${tool} as the launch mail tool, but this checkout's names ${own}: the list goes only to the tool the policy in force names. If ${own} is the tool, deploy the policy that names it (with its dated entry) and run this again; if ${tool} is, bring this checkout up to date (git pull); nothing was written.`,
    );
  }
  return tool;
}
