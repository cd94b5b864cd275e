import { readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "../..");

/**
 * gatsby-ssr.tsx replaces Gatsby's renderer to read react-helmet's tags per
 * page (the reason is written there). Gatsby runs one replaceRenderer only,
 * so a plugin added later that brings its own would silently drop the
 * verification tag or be dropped itself: the build's own list of SSR
 * plugins must name ours as the only one.
 */
describe("the build's SSR plugins", () => {
  const runner = readFileSync(path.join(root, ".cache/api-runner-ssr.js"), "utf8");
  const plugins = [...runner.matchAll(/name: '([^']+)',\s*plugin: require\('([^']+)'\)/g)].map(([, name, file]) => ({
    name: name!,
    file: file!,
  }));

  it("are listed, the site's own among them", () => {
    expect(plugins.map((plugin) => plugin.name)).toContain("default-site-plugin");
    expect(plugins.find((plugin) => plugin.name === "default-site-plugin")?.file).toBe(
      path.join(root, "gatsby-ssr.tsx"),
    );
  });

  it("leave replaceRenderer to gatsby-ssr.tsx alone", () => {
    const renderers = plugins
      .filter((plugin) => /\breplaceRenderer\b/.test(readFileSync(plugin.file, "utf8")))
      .map((plugin) => plugin.name);
    expect(renderers).toEqual(["default-site-plugin"]);
  });
});
