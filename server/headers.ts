/**
 * HTTP caching rules for the built site, per Gatsby's guidance
 * (https://www.gatsbyjs.com/docs/how-to/previews-deploys-hosting/caching/):
 * HTML and page data must be revalidated on every visit; hashed bundles and
 * everything under static/ never change and may be kept for a year.
 */
export const revalidate = "public, max-age=0, must-revalidate";
export const immutable = "public, max-age=31536000, immutable";

/** Bundles Gatsby names with a content hash: app-3f2a….js, styles.9c1b….css, 454-cf29….js. */
const hashedAsset = /^\/[^/]*[.-][0-9a-f]{16,}\.(js|css)$/;

export function cacheControlFor(urlPath: string): string {
  if (urlPath.startsWith("/static/")) return immutable;
  if (hashedAsset.test(urlPath)) return immutable;
  // HTML, page-data/**, app-data.json, sw.js and anything unhashed.
  return revalidate;
}
