/**
 * @jest-environment node
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { request, serveBuildForSuite } from "../support/harness";

const publicDir = path.resolve(__dirname, "../../public");

/** Every file the build wrote, as a URL path, compressed copies aside. */
const builtFiles = readdirSync(publicDir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && !/\.(br|gz)$/.test(entry.name))
  .map((entry) => `/${path.relative(publicDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/")}`)
  .sort();

/** What may be downloaded from a deploy: the pages, their data, the hashed bundles and the static files. */
const servable = [
  /^\/(index\.html|404\.html|(404|privacy-policy|terms-of-service)\/index\.html)$/,
  /^\/page-data\/.+\.json$/,
  /^\/(app|framework|webpack-runtime|component---[a-z0-9-]+|[0-9a-f]+)-[0-9a-f]{20}\.js$/,
  /^\/styles\.[0-9a-f]{20}\.css$/,
  /^\/~partytown\/(debug\/)?partytown[a-z-]*\.js$/,
  /^\/(favicon\.(svg|png)|apple-touch-icon\.png|og-image\.png|robots\.txt|sitemap-(index|0)\.xml)$/,
];
/** Written for the build and the host; never downloadable. */
const privateFiles = [
  "/_gatsby/slices/_gatsby-scripts-1.html",
  "/_headers",
  "/_redirects",
  "/chunk-map.json",
  "/webpack.stats.json",
];

describe("what a build lets visitors download", () => {
  it("has no source maps: they would publish the full original source", () => {
    expect(builtFiles.filter((file) => file.endsWith(".map"))).toEqual([]);
  });

  it("holds only servable files and the known private ones", () => {
    expect(builtFiles.filter((file) => !servable.some((pattern) => pattern.test(file)))).toEqual(privateFiles);
  });

  it("blocks on Netlify, through _redirects, every private file Netlify would otherwise serve", () => {
    // Netlify's format: a rule a line; blank lines and # comments (the adapter's empty block) are skipped.
    const rules = readFileSync(path.join(publicDir, "_redirects"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"))
      .map((line) => line.trim().split(/\s+/));
    for (const rule of rules) expect(rule.slice(1)).toEqual(["/404.html", "404!"]);
    const blocked = (file: string) =>
      rules.some(([from]) => (from!.endsWith("*") ? file.startsWith(from!.slice(0, -1)) : file === from));
    // Netlify itself never serves _headers and _redirects.
    expect(privateFiles.filter((file) => !blocked(file))).toEqual(["/_headers", "/_redirects"]);
    expect(builtFiles.filter((file) => servable.some((pattern) => pattern.test(file)) && blocked(file))).toEqual([]);
  });

  describe("on npm start", () => {
    const { url } = serveBuildForSuite(publicDir);

    it("serves every servable file and answers 404 for every private one, compressed copies included", async () => {
      for (const file of builtFiles) {
        const plain = await request(`${url()}${file}`);
        const brotli = await request(`${url()}${file}`, { headers: { "Accept-Encoding": "br" } });
        const expected = privateFiles.includes(file) ? 404 : 200;
        expect([file, plain.status, brotli.status]).toEqual([file, expected, expected]);
      }
      for (const file of privateFiles) {
        expect([file, (await request(`${url()}${file}.br`)).status]).toEqual([file, 404]);
      }
    });
  });
});
