import { readFileSync } from "node:fs";
import path from "node:path";
import { inlineDataId } from "../src/lib/inline-data";

/*
 * Gatsby's loader fetches a page's data before it hydrates it: app-data.json,
 * the page's page-data.json and its static queries' results, three requests
 * on every first visit, each billed by Netlify. gatsby-ssr.tsx preloads them
 * (src/lib/hydration-resources.ts); this step writes those files into the
 * page instead, as one <script type="application/json">, which is data that
 * never runs, and which Gatsby's loader reads before it fetches
 * (src/lib/inline-data.ts). The files stay, for client-side navigation.
 */

/** The build a page's scripts are of, as Gatsby writes it into the page. */
const pageCompilationHash = /window\.___webpackCompilationHash="([0-9a-f]+)"/;
const appData = "/page-data/app-data.json";
/** The element an earlier build's step wrote. */
const inlined = new RegExp(`<script type="application/json" id="${inlineDataId}">(.*?)</script>`);

/** A preload of a data file, as gatsby-ssr.tsx writes it. */
const dataPreload = /<link rel="preload" href="(\/page-data\/[^"]+\.json)" as="fetch" crossorigin="anonymous"\/>/g;

/**
 * A built page with its data preloads replaced by the files they name, read
 * by `read` (a URL path to the file's text), in one JSON element at the
 * place of the first. The app data is the page's own: it names the build
 * whose scripts the page runs (Gatsby's loader reloads a page whose app data
 * names another, a new deploy), and the file beside it may be a cached
 * build's when this step runs; a page inlined by an earlier build and kept
 * by Gatsby (Netlify's build cache restores them) has it set right too. A
 * second build with that cache restored made pages that reloaded themselves
 * without end. A page with neither comes back unchanged.
 */
export function withInlineData(html: string, read: (urlPath: string) => string): string {
  const own = pageCompilationHash.exec(html)?.[1];
  const withOwnAppData = (data: Record<string, unknown>) =>
    own && appData in data ? { ...data, [appData]: { webpackCompilationHash: own } } : data;
  // No "<" in the element's text, so nothing in the data can end it (a "</script>" in a policy's words, say).
  const element = (data: Record<string, unknown>) =>
    `<script type="application/json" id="${inlineDataId}">${JSON.stringify(withOwnAppData(data)).replace(/</g, "\\u003c")}</script>`;
  const urls = [...html.matchAll(dataPreload)].map((match) => match[1]!);
  if (urls.length === 0) {
    return html.replace(inlined, (_, json: string) => element(JSON.parse(json) as Record<string, unknown>));
  }
  const data = Object.fromEntries(
    urls.map((url) => [url, url === appData && own ? {} : (JSON.parse(read(url)) as unknown)]),
  );
  let first = true;
  return html.replace(dataPreload, () => {
    if (!first) return "";
    first = false;
    return element(data);
  });
}

/** Reads a data file of the build in publicDir by its URL path. */
export function readBuiltFile(publicDir: string): (urlPath: string) => string {
  return (urlPath) => readFileSync(path.join(publicDir, ...urlPath.split("/")), "utf8");
}
