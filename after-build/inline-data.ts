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

/** A preload of a data file, as gatsby-ssr.tsx writes it. */
const dataPreload = /<link rel="preload" href="(\/page-data\/[^"]+\.json)" as="fetch" crossorigin="anonymous"\/>/g;

/**
 * A built page with its data preloads replaced by the files they name, read
 * by `read` (a URL path to the file's text), in one JSON element at the
 * place of the first. A page without them comes back unchanged.
 */
export function withInlineData(html: string, read: (urlPath: string) => string): string {
  const urls = [...html.matchAll(dataPreload)].map((match) => match[1]!);
  if (urls.length === 0) return html;
  const data = Object.fromEntries(urls.map((url) => [url, JSON.parse(read(url)) as unknown]));
  // No "<" in the element's text, so nothing in the data can end it (a "</script>" in a policy's words, say).
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  let first = true;
  return html.replace(dataPreload, () => {
    if (!first) return "";
    first = false;
    return `<script type="application/json" id="${inlineDataId}">${json}</script>`;
  });
}

/** Reads a data file of the build in publicDir by its URL path. */
export function readBuiltFile(publicDir: string): (urlPath: string) => string {
  return (urlPath) => readFileSync(path.join(publicDir, ...urlPath.split("/")), "utf8");
}
