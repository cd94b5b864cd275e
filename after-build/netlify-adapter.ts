import path from "node:path";
import type { AdapterInit, IAdapter } from "gatsby";
import createNetlifyAdapter from "gatsby-adapter-netlify";
import type { Env } from "../config/env";
import { headerRules } from "./headers-file";

/*
 * Gatsby's Netlify adapter, handed the site's header rules in place of
 * Gatsby's own. Gatsby always gives it a /* rule of its defaults
 * (Cache-Control, Referrer-Policy: same-origin, X-XSS-Protection: 1;
 * mode=block) that its `headers` option cannot replace, only add to: two
 * values for one header on every path. With the site's rules, each path gets
 * each header once, and exactly what npm start sends (http/headers.ts).
 */
export const netlifyAdapterWithSiteHeaders: AdapterInit = (options) => {
  // Without the adapter's build cache: it restored public/ and .cache/ from the last build, and Gatsby kept the pages
  // that had not changed as the after-build steps had left them, so a second build ran those steps over them again
  // (two paint-first loaders a page, invalid HTML) and inlined a stale build's app data (the page reloaded itself).
  // Every build starts from nothing, as a clean clone's does.
  const { cache: _cache, ...adapter }: IAdapter = createNetlifyAdapter(options);
  return {
    ...adapter,
    adapt(context) {
      // Runs after onPostBuild, so the pages are final and each CSP holds their last inline code.
      const headerRoutes = headerRules(path.resolve("public")).map((rule) => ({
        path: rule.path,
        headers: Object.entries(rule.headers).map(([name, value]) => ({ key: name.toLowerCase(), value })),
      }));
      return adapter.adapt({ ...context, headerRoutes });
    },
  };
};

/**
 * Whether Gatsby would pick its own Netlify adapter for this build
 * (gatsby/adapters.js): on Netlify (NETLIFY) and under netlify-cli's
 * `netlify serve` (NETLIFY_LOCAL alone). Then gatsby-config.ts names this one
 * instead, or Gatsby's defaults replace the site's _headers.
 */
export function buildsForNetlify(env: Pick<Env, "NETLIFY" | "NETLIFY_LOCAL">): boolean {
  return Boolean(env.NETLIFY) || Boolean(env.NETLIFY_LOCAL);
}
