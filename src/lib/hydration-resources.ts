/*
 * What a page needs before it can hydrate, beyond the app bundles, announced
 * in its HTML by gatsby-ssr.tsx. Gatsby 5 writes only its app bundles into a
 * page. The page's own component chunk and its data it asks for once the app
 * runs (page-data.json and app-data.json, then the static queries' results
 * and the chunk): two round trips one
 * after the other before the page hydrates. Announced, the data downloads
 * while the page is parsed and the chunk with the app's bundles.
 */

export interface HydrationResources {
  /** The page component's scripts, in order, which Gatsby does not write into the page: <script async>. */
  scripts: string[];
  /** Fetched by Gatsby's loader with XMLHttpRequest: <link rel="preload" as="fetch" crossorigin="anonymous">. */
  data: string[];
}

/** The page-data URL Gatsby's loader asks for (its createPageDataUrl): "/" is "index". */
export function pageDataUrl(pagePath: string): string {
  const trimmed = pagePath.replace(/^\/+|\/+$/g, "");
  return `/page-data/${trimmed === "" ? "index" : trimmed}/page-data.json`;
}

/**
 * What a page needs to hydrate beyond the app bundles, from its page data
 * (componentChunkName, and the static queries' results the loader fetches
 * with it) and webpack.stats.json's assetsByChunkName, where each page's
 * chunk lists every file its chunk group loads, the app's among them.
 */
export function hydrationResources(
  pagePath: string,
  { componentChunkName, staticQueryHashes }: { componentChunkName: string; staticQueryHashes: readonly string[] },
  assetsByChunkName: Readonly<Record<string, readonly string[]>>,
): HydrationResources {
  const chunk = assetsByChunkName[componentChunkName];
  if (!chunk) throw new Error(`webpack.stats.json has no chunk ${componentChunkName} for the page ${pagePath}`);
  // The landing page's code is in the app's own script (gatsby-node.ts), which Gatsby writes into every page.
  const app = new Set(assetsByChunkName.app ?? []);
  return {
    scripts: chunk.filter((name) => name.endsWith(".js") && !app.has(name)).map((name) => `/${name}`),
    data: [
      "/page-data/app-data.json",
      pageDataUrl(pagePath),
      ...staticQueryHashes.map((hash) => `/page-data/sq/d/${hash}.json`),
    ],
  };
}
