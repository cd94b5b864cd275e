import { hydrationResources, pageDataUrl } from "./hydration-resources";

describe("pageDataUrl", () => {
  it.each([
    ["/", "/page-data/index/page-data.json"],
    ["/privacy-policy/", "/page-data/privacy-policy/page-data.json"],
    ["/terms-of-service", "/page-data/terms-of-service/page-data.json"],
    ["/404.html", "/page-data/404.html/page-data.json"],
    ["/404/", "/page-data/404/page-data.json"],
  ])("%s: %s, as Gatsby's loader asks for it", (pagePath, url) => {
    expect(pageDataUrl(pagePath)).toBe(url);
  });
});

describe("hydrationResources", () => {
  const chunks = {
    app: ["webpack-runtime-1.js", "styles.2.css", "framework-3.js", "app-4.js"],
    "component---src-templates-legal-page-tsx": ["styles.2.css", "d9f6-5.js", "component---legal-6.js"],
  };

  it("names the page's own scripts in webpack's order, without the stylesheet, and the data", () => {
    const page = { componentChunkName: "component---src-templates-legal-page-tsx", staticQueryHashes: ["1234"] };
    expect(hydrationResources("/privacy-policy/", page, chunks)).toEqual({
      scripts: ["/d9f6-5.js", "/component---legal-6.js"],
      data: ["/page-data/app-data.json", "/page-data/privacy-policy/page-data.json", "/page-data/sq/d/1234.json"],
    });
  });

  it("names none of the app's scripts, which Gatsby writes into every page: a page whose code is the app's has none", () => {
    const merged = {
      app: ["styles.2.css", "app-4.js"],
      "component---src-pages-index-tsx": ["styles.2.css", "app-4.js"],
      "component---src-templates-legal-page-tsx": ["styles.2.css", "app-4.js", "d9f6-5.js", "component---legal-6.js"],
    };
    const landing = { componentChunkName: "component---src-pages-index-tsx", staticQueryHashes: [] };
    expect(hydrationResources("/", landing, merged).scripts).toEqual([]);
    const legal = { componentChunkName: "component---src-templates-legal-page-tsx", staticQueryHashes: [] };
    expect(hydrationResources("/privacy-policy/", legal, merged).scripts).toEqual([
      "/d9f6-5.js",
      "/component---legal-6.js",
    ]);
  });

  it("fails the build, naming the page, when webpack wrote no such chunk", () => {
    expect(() =>
      hydrationResources("/", { componentChunkName: "component---src-pages-index-tsx", staticQueryHashes: [] }, chunks),
    ).toThrow("webpack.stats.json has no chunk component---src-pages-index-tsx for the page /");
  });
});
