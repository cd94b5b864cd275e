import { createHash } from "node:crypto";
import * as cheerio from "cheerio";

/*
 * Every HTTP header the site sends, in one place: the files' (Netlify gets
 * them through public/_headers, which after-build/headers-file.ts writes from
 * these; `npm start` sends the same) and the waitlist's answers' (both
 * deployments send them as the endpoints return them).
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
  // default, "1; mode=block", never reaches _headers (after-build/netlify-adapter.ts).
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

/** What an answer of the waitlist's endpoints is: a line of text, or the site's small page. */
export type ReplyKind = "text" | "page";

/**
 * The headers of every answer of the waitlist's endpoints and of the server's
 * own refusals: never stored by a cache (each is about one request), and a
 * page gets the policy of its own inline style (`pagePolicy`).
 */
export function replyHeaders(kind: ReplyKind, pagePolicy?: string): Record<string, string> {
  return {
    ...securityHeaders,
    "Content-Type": kind === "page" ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
    ...(kind === "page" && pagePolicy ? { "Content-Security-Policy": pagePolicy } : {}),
    "Cache-Control": "no-store",
  };
}

/**
 * Added to the pages a link from an e-mail opens (confirm, leave): nothing
 * there is for search engines, and the token in their address must not travel
 * on in a Referer: strict-origin sends the origin alone. (Not no-referrer:
 * under it a browser sends the page's own form post with "Origin: null",
 * which the cross-site rule refuses.)
 */
export const linkPageHeaders: Readonly<Record<string, string>> = {
  "Referrer-Policy": "strict-origin",
  "X-Robots-Tag": "noindex",
};
