import { header, type FormRequest } from "./http";

/* Refusing another site's post (CSRF): what a browser says of where a POST comes from. */

/**
 * This site's origins as a request may name them: the configured site's
 * (`siteUrl`, SITE_URL) and that of the address it came in on; never the
 * request's own Host, which a DNS-rebinding page sets to its own name.
 */
export function siteOrigins(request: FormRequest, siteUrl: string): readonly string[] {
  return [new URL(siteUrl).origin, ...request.ownOrigins()];
}

/** A browser tells us where a POST comes from; refuse other sites (CSRF): the Origin must be one of siteOrigins. */
export function isCrossSite(request: FormRequest, siteUrl: string): boolean {
  if (header(request.headers, "sec-fetch-site") === "cross-site") return true;
  const origin = header(request.headers, "origin");
  if (origin === undefined) return false;
  let originOf: string;
  try {
    originOf = new URL(origin).origin;
  } catch {
    return true; // "null" (sandboxed or privacy-redirected) and garbage alike
  }
  return !siteOrigins(request, siteUrl).includes(originOf);
}

/**
 * Stricter, for a button that acts in a person's name (the confirm page's): the browser must say the POST came
 * from this site, by an Origin of ours or `Sec-Fetch-Site: same-origin`. Every browser sends one of them with a
 * form post; a POST with neither is a script's or a scanner's. (The leave link's one-click POST has neither, by
 * RFC 8058, and does not ask this.)
 */
export function isFromThisSite(request: FormRequest, siteUrl: string): boolean {
  if (isCrossSite(request, siteUrl)) return false;
  return header(request.headers, "origin") !== undefined || header(request.headers, "sec-fetch-site") === "same-origin";
}
