import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { htmlPages, netlifyHeaders } from "./headers-file";
import { precompress } from "./precompress";
import { netlifyRedirects } from "../http/private-files";
import { addCompileHints } from "./compile-hints";
import { readBuiltFile, withInlineData } from "./inline-data";
import { brokenLinks } from "./links";
import { withPaintFirstLoader } from "./paint-first";

/*
 * Everything that runs after `gatsby build`, in one ordered list
 * (gatsby-node.ts's onPostBuild runs it). Prefer Gatsby's own APIs: these are
 * the steps that cannot be one. A step that rewrites Gatsby's output stays
 * only while `npm run bench` shows, in the same run, that it pays for itself;
 * the bench measures the build without each such step to tell.
 */

export interface AfterBuildStep {
  name: string;
  /** Why it exists, in one line. */
  why: string;
  /** True when it changes files Gatsby wrote, rather than adding files of its own. */
  rewritesGatsbyOutput: boolean;
  /** Does the work in a build's public/ folder, for the site at `siteUrl`; returns one line for the build log. */
  run(publicDir: string, siteUrl: string): Promise<string> | string;
}

export const afterBuildSteps: readonly AfterBuildStep[] = [
  {
    name: "links",
    why: "A link to a route no page has (a renamed policy slug, say) fails the build instead of a visitor.",
    rewritesGatsbyOutput: false,
    run(publicDir, siteUrl) {
      const problems = brokenLinks(publicDir, siteUrl);
      if (problems.length > 0) throw new Error(problems.join("\n"));
      return "Every link on the site leads to a page";
    },
  },
  {
    name: "paint-first",
    why: "Gatsby's bundles start after the first paint, so they cannot hold it back.",
    rewritesGatsbyOutput: true,
    run(publicDir) {
      const pages = htmlPages(publicDir);
      for (const { file } of pages) writeFileSync(file, withPaintFirstLoader(readFileSync(file, "utf8")));
      return `Paint-first loader in ${pages.length} pages`;
    },
  },
  {
    name: "inline-data",
    why: "The data Gatsby's loader fetches before it hydrates comes in the page: three requests fewer a first visit.",
    rewritesGatsbyOutput: true,
    run(publicDir) {
      const pages = htmlPages(publicDir);
      const read = readBuiltFile(publicDir);
      for (const { file } of pages) writeFileSync(file, withInlineData(readFileSync(file, "utf8"), read));
      return `Data inlined in ${pages.length} pages`;
    },
  },
  {
    name: "compile-hints",
    why: "V8 compiles the bundles on a background thread while they download, not on the main thread.",
    rewritesGatsbyOutput: true,
    run: (publicDir) => `Marked ${addCompileHints(publicDir).length} scripts for eager compilation`,
  },
  {
    name: "headers",
    why: "Netlify's _headers: each page's CSP holds the hashes of the final HTML's inline code.",
    rewritesGatsbyOutput: false,
    run(publicDir) {
      writeFileSync(path.join(publicDir, "_headers"), netlifyHeaders(publicDir));
      return "Wrote public/_headers";
    },
  },
  {
    name: "private-files",
    why: "Netlify's _redirects: the build's bookkeeping answers 404 there too, as on npm start.",
    rewritesGatsbyOutput: false,
    run(publicDir) {
      writeFileSync(path.join(publicDir, "_redirects"), netlifyRedirects());
      return "Wrote public/_redirects";
    },
  },
  {
    name: "robots",
    why: "robots.txt names the sitemap at SITE_URL, which gatsby-plugin-sitemap does not.",
    rewritesGatsbyOutput: false,
    run(publicDir, siteUrl) {
      writeFileSync(
        path.join(publicDir, "robots.txt"),
        `User-agent: *\nAllow: /\n\nSitemap: ${siteUrl}/sitemap-index.xml\n`,
      );
      return "Wrote public/robots.txt";
    },
  },
  {
    name: "precompress",
    // Last, so every file written above gets its compressed copies too.
    why: "Brotli 11 and gzip 9 copies once, for npm start, instead of a quick pass on every request.",
    rewritesGatsbyOutput: false,
    async run(publicDir) {
      const { files, bytes, brotliBytes } = await precompress(publicDir);
      return `Precompressed ${files} files for npm start: ${(bytes / 1024).toFixed(0)} KB, ${(brotliBytes / 1024).toFixed(0)} KB as brotli`;
    },
  },
];

/**
 * Runs the steps in order on publicDir, leaving out those named in skip (the
 * bench builds a page without a step to weigh it). Returns the log lines.
 */
export async function runAfterBuild(
  publicDir: string,
  { siteUrl, skip = [] }: { siteUrl: string; skip?: readonly string[] },
): Promise<string[]> {
  const unknown = skip.filter((name) => !afterBuildSteps.some((step) => step.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown after-build step ${unknown.join(", ")}; the steps are ${afterBuildSteps.map((step) => step.name).join(", ")}.`,
    );
  }
  const lines: string[] = [];
  for (const step of afterBuildSteps) {
    if (skip.includes(step.name)) lines.push(`Left out ${step.name}`);
    else lines.push(await step.run(publicDir, siteUrl));
  }
  return lines;
}
