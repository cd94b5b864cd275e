// A webpack loader for one file, Gatsby's own loader (.cache/loader.js, in the browser bundle only: gatsby-node.ts):
// its doFetch, through which it fetches every data file, first takes the page's own copy of the file, if the page
// carries one (src/lib/inline-data.ts). Gatsby has no API for this; a Gatsby whose loader no longer has this
// doFetch fails the build here, rather than quietly fetching again.
const path = require("node:path");

const doFetch = "function doFetch(url, method = `GET`) {";

module.exports = function inlineDataWiring(source) {
  if (!source.includes(doFetch)) {
    throw new Error(
      `src/lib/inline-data-wiring.cjs: Gatsby's loader has no "${doFetch}" to take the page's data first; see how it fetches now and update this file.`,
    );
  }
  const module = JSON.stringify(path.resolve(__dirname, "inline-data.ts"));
  const take = "\n  const inline = takeInlineResponse(url, method)\n  if (inline) return Promise.resolve(inline)";
  return `import { takeInlineResponse } from ${module}\n${source.replace(doFetch, doFetch + take)}`;
};
