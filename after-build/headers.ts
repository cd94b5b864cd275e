import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as cheerio from "cheerio";

/*
 * Every HTTP header the site sends, in one place: Netlify gets them through
 * public/_headers (written after the build), `npm start` sends the same.
 */

/**
 * Caching, per Gatsby's guidance
 * (https://www.gatsbyjs.com/docs/how-to/previews-deploys-hosting/caching/):
 * HTML and page data are revalidated on every visit; hashed bundles and
 * everything under static/ never change and may be kept for a year.
 */
export const revalidate = "public, max-age=0, must-revalidate";
export const immutable = "public, max-age=31536000, immutable";

/** Bundles Gatsby names with a content hash: app-3f2a….js, styles.9c1b….css, 454-cf29….js. */
const hashedAsset = /^\/[^/]*[.-][0-9a-f]{16,}\.(js|css)$/;

export function cacheControlFor(urlPath: string): string {
  if (urlPath.startsWith("/static/")) return immutable;
  if (hashedAsset.test(urlPath)) return immutable;
  // HTML, page-data/**, app-data.json and anything unhashed.
  return revalidate;
}

/** Sent with every response. */
export const securityHeaders: Readonly<Record<string, string>> = {
  "Strict-Transport-Security": "max-age=63072000; includeSubDomains; preload",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  // The XSS auditor it once switched on is gone from every browser, and could leak what a page holds; Gatsby's
  // Netlify adapter still sends "1; mode=block" on every path, which this value overrides there (netlifyHeaders).
  "X-XSS-Protection": "0",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

export function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

export interface InlineHashes {
  scripts: string[];
  styles: string[];
  /** style="…" attributes, allowed with 'unsafe-hashes' and their exact hash only. */
  styleAttributes: string[];
}

/** The hashes of every inline script, stylesheet and style attribute of a page. */
export function inlineHashes(html: string): InlineHashes {
  const $ = cheerio.load(html);
  const unique = (values: string[]) => [...new Set(values)];
  return {
    scripts: unique(
      $("script:not([src])")
        .map((_, element) => sha256($(element).html() ?? ""))
        .get(),
    ),
    styles: unique(
      $("style")
        .map((_, element) => sha256($(element).html() ?? ""))
        .get(),
    ),
    styleAttributes: unique(
      $("[style]")
        .map((_, element) => sha256($(element).attr("style") ?? ""))
        .get(),
    ),
  };
}

/**
 * A policy that allows only this site's own files and exactly the inline
 * code the page carries: no 'unsafe-inline', no 'unsafe-eval'.
 */
export function contentSecurityPolicy({ scripts, styles, styleAttributes }: InlineHashes): string {
  const styleSources = ["'self'", ...styles];
  if (styleAttributes.length > 0) styleSources.push("'unsafe-hashes'", ...styleAttributes);
  return [
    "default-src 'none'",
    ["script-src", "'self'", ...scripts].join(" "),
    ["style-src", ...styleSources].join(" "),
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers of an HTML page, computed from the page itself. */
export function htmlHeaders(html: string): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(inlineHashes(html)),
    "Cache-Control": revalidate,
  };
}

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
 * Where gatsby-adapter-netlify writes its own rules into _headers, after the
 * build: between these two lines when the file has them, else at its end.
 */
export const adapterMarkers = ["# gatsby-adapter-netlify start", "# gatsby-adapter-netlify end"] as const;

/**
 * Netlify's _headers file for a build (https://docs.netlify.com/routing/headers/).
 *
 * On Netlify, gatsby-adapter-netlify adds Gatsby's own rules to this file
 * after the build: on /* a Referrer-Policy of its own, an X-XSS-Protection,
 * a Cache-Control for every path. Netlify applies every rule that matches a
 * path, and where two set the same header, the later one's value is sent
 * (@netlify/headers' headersForPath, what netlify dev runs). So the adapter's
 * block comes first, between its markers, and the site's rules after it,
 * with names in lower case as the adapter writes them: a name that differs
 * only in case would be another header to the file's parser. The build test
 * runs Netlify's own code over the result and checks it against npm start.
 */
export function netlifyHeaders(publicDir: string): string {
  const rules: [string, Record<string, string>][] = [["/*", { ...securityHeaders }]];
  for (const page of htmlPages(publicDir)) {
    const headers = htmlHeaders(readFileSync(page.file, "utf8"));
    for (const route of page.routes) rules.push([route, headers]);
  }
  rules.push(["/page-data/*", { "Cache-Control": revalidate }]);
  rules.push(["/static/*", { "Cache-Control": immutable }]);
  for (const name of readdirSync(publicDir).sort()) {
    if (hashedAsset.test(`/${name}`)) rules.push([`/${name}`, { "Cache-Control": immutable }]);
  }
  return `${adapterMarkers.join("\n")}\n${rules
    .map(([route, headers]) =>
      [route, ...Object.entries(headers).map(([name, value]) => `  ${name.toLowerCase()}: ${value}`)].join("\n"),
    )
    .join("\n")}\n`;
}
