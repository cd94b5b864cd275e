import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { cacheControlFor, htmlHeaders, immutable, revalidate, securityHeaders } from "../http/headers";
import { isPrivatePath } from "../http/private-files";

/*
 * Netlify's _headers, written after the build from the site's header rules
 * (http/headers.ts), the ones npm start sends.
 */

export interface HtmlPage {
  /** The file under public/. */
  file: string;
  /** The paths that serve it: "/privacy-policy/" for privacy-policy/index.html. */
  routes: string[];
}

/** Every HTML page of a build and the paths it is served at. */
export function htmlPages(publicDir: string): HtmlPage[] {
  const pages: HtmlPage[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) {
        // page-data/ and static/ hold no pages; _gatsby/ and ~partytown/ are Gatsby's internals.
        if (name !== "page-data" && name !== "static" && !/^[_~]/.test(name)) walk(file);
        continue;
      }
      if (!name.endsWith(".html")) continue;
      const relative = `/${path.relative(publicDir, file).split(path.sep).join("/")}`;
      // /privacy-policy is answered with a redirect to /privacy-policy/, here and on Netlify.
      const routes = name === "index.html" ? [relative.slice(0, -"index.html".length)] : [relative];
      pages.push({ file, routes });
    }
  };
  walk(publicDir);
  return pages;
}

/**
 * Where gatsby-adapter-netlify writes its rules into _headers, after the
 * build: between these two lines when the file has them, else at its end.
 */
export const adapterMarkers = ["# gatsby-adapter-netlify start", "# gatsby-adapter-netlify end"] as const;

/** One rule of Netlify's _headers: a path pattern and what every path it matches gets. */
export interface HeaderRule {
  path: string;
  headers: Record<string, string>;
}

/**
 * Every rule of Netlify's _headers for a build (https://docs.netlify.com/routing/headers/),
 * such that no two rules that match one path set one header: Netlify does not
 * document which value it sends then, and is known to send both. So Cache-Control
 * is never on /*: each page, each data file and each other file gets its own,
 * and hashed bundles and static/ theirs. The same values npm start sends.
 */
export function headerRules(publicDir: string): HeaderRule[] {
  const rules: HeaderRule[] = [{ path: "/*", headers: { ...securityHeaders } }];
  const pages = htmlPages(publicDir);
  for (const page of pages) {
    const headers = htmlHeaders(readFileSync(page.file, "utf8"));
    for (const route of page.routes) rules.push({ path: route, headers });
  }
  rules.push({ path: "/page-data/*", headers: { "Cache-Control": revalidate } });
  rules.push({ path: "/static/*", headers: { "Cache-Control": immutable } });
  const pageFiles = new Set(pages.map((page) => page.file));
  for (const urlPath of servedFiles(publicDir)) {
    if (urlPath.startsWith("/page-data/") || urlPath.startsWith("/static/")) continue;
    if (pageFiles.has(path.join(publicDir, urlPath))) continue;
    rules.push({ path: urlPath, headers: { "Cache-Control": cacheControlFor(urlPath) } });
  }
  return rules;
}

/** The URL path of every file a visitor may fetch: not a private one, not a compressed copy of another. */
function servedFiles(publicDir: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
        continue;
      }
      const urlPath = `/${path.relative(publicDir, file).split(path.sep).join("/")}`;
      if (isPrivatePath(urlPath) || /\.(br|gz)$/.test(urlPath)) continue;
      files.push(urlPath);
    }
  };
  walk(publicDir);
  return files;
}

/** Rules as _headers writes them: header names in lower case, as the adapter writes them. */
export function headersFileText(rules: HeaderRule[]): string {
  return rules
    .map(({ path: pattern, headers }) =>
      [pattern, ...Object.entries(headers).map(([name, value]) => `  ${name.toLowerCase()}: ${value}`)].join("\n"),
    )
    .join("\n");
}

/**
 * Netlify's _headers for a build. On a Netlify build, gatsby-adapter-netlify
 * then writes its rules between the markers; the adapter the site configures
 * (after-build/netlify-adapter.ts) hands it these same rules in place of
 * Gatsby's defaults, whose /* sets Cache-Control, Referrer-Policy and
 * X-XSS-Protection to values that differ from the site's.
 */
export function netlifyHeaders(publicDir: string): string {
  return `${adapterMarkers[0]}\n${headersFileText(headerRules(publicDir))}\n${adapterMarkers[1]}\n`;
}
