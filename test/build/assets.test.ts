import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { builtPage } from "./built-page";
import { pageDataUrl } from "../../src/lib/hydration-resources";
import { inlineDataId } from "../../src/lib/inline-data";

const publicDir = path.resolve(__dirname, "../../public");
const stats = JSON.parse(readFileSync(path.join(publicDir, "webpack.stats.json"), "utf8")) as {
  assetsByChunkName: Record<string, string[]>;
};
const currentAssets = new Set(Object.values(stats.assetsByChunkName).flat());

describe.each(["/", "/privacy-policy/", "/terms-of-service/", "/404/"])("public%sindex.html", (route) => {
  const doc = builtPage(route);

  it("inlines the stylesheet of this build, not a stale one", () => {
    const styles = [...doc.querySelectorAll("style[data-href]")];
    expect(styles.length).toBeGreaterThan(0);
    for (const style of styles) {
      const href = style.getAttribute("data-href")!;
      expect(currentAssets.has(href.replace(/^\//, ""))).toBe(true);
      const file = path.join(publicDir, href);
      expect(style.textContent).toBe(readFileSync(file, "utf8"));
    }
  });

  const js = (names: readonly string[] = []) => names.filter((name) => name.endsWith(".js")).map((name) => `/${name}`);

  const pageData = () =>
    JSON.parse(readFileSync(path.join(publicDir, pageDataUrl(route)), "utf8")) as {
      componentChunkName: string;
      staticQueryHashes: string[];
    };

  it("runs the page's own chunk and Gatsby's bundles through the paint-first loader, and only files that exist", () => {
    expect(doc.querySelectorAll("script[src]")).toHaveLength(0);
    const loaders = doc.querySelectorAll("script#paint-first");
    expect(loaders).toHaveLength(1);
    const scripts = JSON.parse(/\((\[[^\]]+\])\);$/.exec(loaders[0]!.textContent!)![1]!) as string[];
    const app = js(stats.assetsByChunkName.app);
    // The app's one script, with webpack's runtime and the framework in it (gatsby-node.ts).
    expect(app).toEqual([expect.stringMatching(/^\/app-[0-9a-f]+\.js$/)]);
    // The page's component chunk (gatsby-ssr.tsx adds it), less what the app's script holds, then the app's.
    const own = js(stats.assetsByChunkName[pageData().componentChunkName]).filter((src) => !app.includes(src));
    expect(scripts).toEqual([...own, ...app]);
    // The landing page's code is the app's own: a visit to / loads one script.
    if (route === "/") expect(scripts).toEqual(app);
    expect(scripts.filter((src) => !existsSync(path.join(publicDir, src)))).toEqual([]);
  });

  it("carries the data Gatsby's loader fetches before it hydrates, as the build wrote it, and preloads nothing", () => {
    expect(doc.querySelectorAll('link[rel="preload"]')).toHaveLength(0);
    const { staticQueryHashes } = pageData();
    // The site's settings (use-site-settings.ts) are a static query every page runs.
    expect(staticQueryHashes).toHaveLength(1);
    const element = doc.getElementById(inlineDataId)!;
    expect([element.parentElement?.tagName, element.tagName, element.getAttribute("type")]).toEqual([
      "HEAD",
      "SCRIPT",
      "application/json",
    ]);
    const files = [
      "/page-data/app-data.json",
      pageDataUrl(route),
      ...staticQueryHashes.map((hash) => `/page-data/sq/d/${hash}.json`),
    ];
    expect(JSON.parse(element.textContent!)).toEqual(
      Object.fromEntries(files.map((file) => [file, JSON.parse(readFileSync(path.join(publicDir, file), "utf8"))])),
    );
  });

  it("carries the waitlist form's behaviour in its head if it is the form's page, and it runs on its own", () => {
    const behaviour = [...doc.querySelectorAll("head script:not([src]):not([type])")].filter((script) =>
      script.textContent?.includes("__waitlistForms"),
    );
    // The other pages have no form: the form's component loads the behaviour after a client-side navigation.
    expect(behaviour).toHaveLength(route === "/" ? 1 : 0);
    if (route !== "/") return;
    const installed = () => (window as unknown as { __waitlistForms?: boolean }).__waitlistForms;
    Reflect.deleteProperty(window, "__waitlistForms");
    new Function(behaviour[0]!.textContent!)();
    expect(installed()).toBe(true);
    document.body.innerHTML = builtPage("/").querySelector("form[name=waitlist]")!.outerHTML;
    const fetchStub = jest.fn();
    Object.assign(globalThis, { fetch: fetchStub });
    try {
      document.querySelector<HTMLButtonElement>("button[type=submit]")!.click();
      expect(document.querySelector("[role=status]")!.textContent).toBe("Please enter a valid email address");
      expect(fetchStub).not.toHaveBeenCalled();
    } finally {
      Reflect.deleteProperty(globalThis, "fetch");
      document.body.innerHTML = "";
    }
  });
});

describe("the compressed copies for npm start", () => {
  const names = readdirSync(publicDir, { recursive: true, encoding: "utf8" });

  // Pages, scripts and stylesheets: the files a visitor downloads on every first visit.
  const served = [
    "index.html",
    "privacy-policy/index.html",
    "terms-of-service/index.html",
    "404.html",
    ...currentAssets,
  ];
  const compressible = served.filter((name) => /\.(html|js|css)$/.test(name));

  it("cover every script and stylesheet of the build", () => {
    expect(compressible.filter((name) => name.endsWith(".js")).length).toBeGreaterThan(3);
    expect(compressible.filter((name) => name.endsWith(".css")).length).toBeGreaterThan(0);
  });

  it.each(compressible)("exist for %s", (name) => {
    expect([existsSync(path.join(publicDir, `${name}.br`)), existsSync(path.join(publicDir, `${name}.gz`))]).toEqual([
      true,
      true,
    ]);
  });

  it("each hold exactly the file they stand for", () => {
    const copies = names.filter((name) => /\.(br|gz)$/.test(name));
    expect(copies.length).toBeGreaterThan(10);
    for (const copy of copies) {
      const decompress = copy.endsWith(".br") ? brotliDecompressSync : gunzipSync;
      const original = readFileSync(path.join(publicDir, copy.replace(/\.(br|gz)$/, "")));
      expect([copy, decompress(readFileSync(path.join(publicDir, copy))).equals(original)]).toEqual([copy, true]);
    }
  });
});

describe("the app bundle", () => {
  it("leaves out Partytown, which only gatsby develop uses (gatsby-node.ts swaps its browser plugin out)", () => {
    const app = stats.assetsByChunkName.app!.filter((name) => /^app-.*\.js$/.test(name));
    expect(app).toHaveLength(1);
    expect(readFileSync(path.join(publicDir, app[0]!), "utf8")).not.toMatch(/partytown/i);
  });
});

describe("the scripts the pages load", () => {
  const scripts = [...currentAssets].filter((name) => name.endsWith(".js"));

  it.each(scripts)("%s opens with the compile hint and names no source map", (name) => {
    const code = readFileSync(path.join(publicDir, name), "utf8");
    expect(code.startsWith("//# allFunctionsCalledOnLoad\n")).toBe(true);
    expect(code).not.toMatch(/sourceMappingURL/);
  });
});

describe("the stylesheet", () => {
  it("sets text in two weights only, 400 and 700: each further one is another font lookup before the first paint", () => {
    const css = [...currentAssets].filter((name) => name.endsWith(".css"));
    expect(css.length).toBeGreaterThan(0);
    const weights = new Set(
      css.flatMap((name) => [...readFileSync(path.join(publicDir, name), "utf8").matchAll(/font-weight:\s*([^;}]+)/g)]),
    );
    expect(
      [...weights]
        .map((match) => match[1]!.trim())
        .filter((value) => !["400", "700", "normal", "bold", "inherit"].includes(value)),
    ).toEqual([]);
  });
});
