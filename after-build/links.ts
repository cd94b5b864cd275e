import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as cheerio from "cheerio";
import { htmlPages } from "./headers-file";

/** Whether `file` is a file of the build: not a folder, not outside it, not a name that cannot be. */
function isBuildFile(publicDir: string, file: string): boolean {
  try {
    return file.startsWith(publicDir) && statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The build's file for a URL path, decoded; undefined when the path cannot be decoded. */
function buildPath(publicDir: string, pathname: string): string | undefined {
  try {
    return path.join(publicDir, decodeURIComponent(pathname));
  } catch {
    return undefined;
  }
}

/**
 * Every link of the built pages that stays on this site (a path, or a URL on
 * `siteUrl`) whose target no page or file of the build has, as one line per
 * link naming the page. The legal routes live in config/site.ts and in each
 * policy's `slug`: this is what keeps the two in step.
 */
export function brokenLinks(publicDir: string, siteUrl: string): string[] {
  const problems: string[] = [];
  const siteOrigin = new URL(siteUrl).origin;
  for (const page of htmlPages(publicDir)) {
    const $ = cheerio.load(readFileSync(page.file, "utf8"));
    const from = path.relative(publicDir, page.file);
    for (const element of $("a[href], area[href]").toArray()) {
      const href = $(element).attr("href")!;
      const url = new URL(href, `${siteUrl}${page.routes[0]}`);
      if (url.origin !== siteOrigin) continue;
      // A file, or a folder's page (/privacy-policy is answered with a redirect to /privacy-policy/).
      const target = buildPath(publicDir, url.pathname);
      const found =
        target !== undefined && [target, path.join(target, "index.html")].some((file) => isBuildFile(publicDir, file));
      if (!found) {
        problems.push(`public/${from} links to ${href}, which no page of the build has.`);
      }
    }
  }
  return problems;
}
