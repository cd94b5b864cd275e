import { readFileSync } from "node:fs";
import path from "node:path";
import { builtPage } from "./built-page";
import { readEnv, siteSettings } from "../../config/env";

const publicDir = path.resolve(__dirname, "../../public");
const read = (name: string) => readFileSync(path.join(publicDir, name), "utf8");
/** The origin this build was configured with (SITE_URL), as the test run sees it. */
const origin = siteSettings(readEnv()).siteUrl;

const pages = [
  ["/", "Tandem | grow. together."],
  ["/privacy-policy/", "Privacy Policy | Tandem"],
  ["/terms-of-service/", "Terms of Service | Tandem"],
  ["/404/", "Page not found | Tandem"],
] as const;

function meta(doc: Document, key: string): string | null | undefined {
  return doc.querySelector(`meta[name="${key}"], meta[property="${key}"]`)?.getAttribute("content");
}

describe("the sitemap and robots.txt", () => {
  it("list exactly the three routes", () => {
    expect(read("sitemap-index.xml")).toContain(`<loc>${origin}/sitemap-0.xml</loc>`);
    const locs = [...read("sitemap-0.xml").matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);
    expect(locs.sort()).toEqual([`${origin}/`, `${origin}/privacy-policy/`, `${origin}/terms-of-service/`]);
  });

  it("point crawlers at the sitemap", () => {
    expect(read("robots.txt")).toBe(`User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap-index.xml\n`);
  });
});

describe.each(pages)("public%sindex.html", (route, title) => {
  const doc = builtPage(route);

  it("has its title, description and canonical URL", () => {
    expect(doc.title).toBe(title);
    expect(meta(doc, "description")?.length).toBeGreaterThan(20);
    expect(doc.querySelector('link[rel="canonical"]')?.getAttribute("href")).toBe(`${origin}${route}`);
  });

  it("has each of its head tags once", () => {
    for (const selector of ["title", 'meta[name="description"]', 'link[rel="canonical"]', 'meta[property="og:title"]'])
      expect([selector, doc.querySelectorAll(selector).length]).toEqual([selector, 1]);
  });

  it("has Open Graph and Twitter card tags with the social image", () => {
    expect(meta(doc, "og:title")).toBe(title);
    expect(meta(doc, "og:description")).toBe(meta(doc, "description"));
    expect(meta(doc, "og:url")).toBe(`${origin}${route}`);
    expect(meta(doc, "og:type")).toBe("website");
    expect(meta(doc, "og:image")).toBe(`${origin}/og-image.png`);
    expect([meta(doc, "og:image:width"), meta(doc, "og:image:height")]).toEqual(["1200", "630"]);
    expect(meta(doc, "og:image:alt")).toMatch(/Tandem/);
    expect(meta(doc, "twitter:card")).toBe("summary_large_image");
    expect(meta(doc, "twitter:image")).toBe(`${origin}/og-image.png`);
  });

  it("has theme-color, the SVG favicon with a PNG fallback, and lang", () => {
    expect(meta(doc, "theme-color")).toBe("#120f24");
    const svgIcon = doc.querySelector('link[rel="icon"][type="image/svg+xml"]')?.getAttribute("href") ?? "";
    expect(decodeURIComponent(svgIcon)).toBe(`data:image/svg+xml,${read("favicon.svg").trim()}`);
    expect(doc.querySelector('link[rel="icon"][type="image/png"]')?.getAttribute("href")).toBe("/favicon.png");
    expect(doc.documentElement.getAttribute("lang")).toBe("en");
  });

  it(route === "/404/" ? "is kept out of search results" : "may be indexed", () => {
    expect(meta(doc, "robots")).toBe(route === "/404/" ? "noindex" : undefined);
  });
});

describe("titles and descriptions", () => {
  it("are unique per route", () => {
    const docs = pages.map(([route]) => builtPage(route));
    expect(new Set(docs.map((doc) => doc.title)).size).toBe(pages.length);
    expect(new Set(docs.map((doc) => meta(doc, "description"))).size).toBe(pages.length);
  });
});

describe("structured data on /", () => {
  it("describes the Organization and the WebSite", () => {
    const scripts = [...builtPage("/").querySelectorAll('script[type="application/ld+json"]')];
    expect(scripts).toHaveLength(1);
    const data = JSON.parse(scripts[0]!.textContent ?? "") as {
      "@graph": { "@type": string; name: string; url: string }[];
    };
    expect(data["@graph"].map((node) => [node["@type"], node.name, node.url])).toEqual([
      ["Organization", "Tandem", `${origin}/`],
      ["WebSite", "Tandem", `${origin}/`],
    ]);
    expect(builtPage("/privacy-policy/").querySelector('script[type="application/ld+json"]')).toBeNull();
  });
});

describe("the images", () => {
  function pngSize(name: string): [number, number] {
    const png = readFileSync(path.join(publicDir, name));
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    return [png.readUInt32BE(16), png.readUInt32BE(20)];
  }

  it("include a 1200×630 social image and PNG icons", () => {
    expect(pngSize("og-image.png")).toEqual([1200, 630]);
    expect(pngSize("favicon.png")).toEqual([32, 32]);
    expect(pngSize("apple-touch-icon.png")).toEqual([180, 180]);
  });
});
