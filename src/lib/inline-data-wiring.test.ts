import { readFileSync } from "node:fs";
import path from "node:path";

import wiring from "./inline-data-wiring.cjs";
// The loader Gatsby copies to .cache/loader.js, which the wiring is applied to in the browser bundle (gatsby-node.ts).
const gatsbyLoader = readFileSync(require.resolve("gatsby/cache-dir/loader.js"), "utf8");

describe("inline-data-wiring.cjs", () => {
  it("makes the installed Gatsby's doFetch take the page's own copy of a file before it makes a request", () => {
    const wired = wiring(gatsbyLoader);
    expect(
      wired.startsWith(
        `import { takeInlineResponse } from ${JSON.stringify(path.join(__dirname, "inline-data.ts"))}\n`,
      ),
    ).toBe(true);
    const doFetch = wired.slice(wired.indexOf("function doFetch("));
    const take = doFetch.indexOf("const inline = takeInlineResponse(url, method)");
    expect(take).toBeGreaterThan(0);
    expect(take).toBeLessThan(doFetch.indexOf("new XMLHttpRequest()"));
    // Nothing else of Gatsby's loader changes.
    expect(
      wired
        .replace(/^import \{ takeInlineResponse \}.*\n/, "")
        .replace(/\n {2}const inline = .*\n {2}if \(inline\) return Promise\.resolve\(inline\)/, ""),
    ).toBe(gatsbyLoader);
  });

  it("fails the build, saying what to update, when Gatsby's loader no longer fetches through that doFetch", () => {
    expect(() =>
      wiring(gatsbyLoader.replace("function doFetch(url, method = `GET`) {", "function fetchData(url) {")),
    ).toThrow(/Gatsby's loader has no "function doFetch\(url, method = `GET`\) \{".*update this file/);
  });
});
