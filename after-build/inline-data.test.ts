/** @jest-environment jsdom */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readBuiltFile, withInlineData } from "./inline-data";
import { inlineDataId } from "../src/lib/inline-data";

const preload = (href: string) => `<link rel="preload" href="${href}" as="fetch" crossorigin="anonymous"/>`;
const files: Record<string, string> = {
  "/page-data/app-data.json": '{"webpackCompilationHash":"abc"}',
  "/page-data/privacy-policy/page-data.json": '{"path":"/privacy-policy/","result":{"body":"a </script> in the text"}}',
  "/page-data/sq/d/123.json": '{"data":{"site":{}}}',
};
const read = (url: string) => {
  const text = files[url];
  if (text === undefined) throw new Error(`no ${url}`);
  return text;
};
const page = (head: string) => `<!DOCTYPE html><html><head><title>T</title>${head}</head><body></body></html>`;

describe("withInlineData", () => {
  it("replaces the page's data preloads with one JSON element holding each file, by URL, where the first was", () => {
    const html = withInlineData(page(Object.keys(files).map(preload).join("") + "<style>a{}</style>"), read);
    const doc = new DOMParser().parseFromString(html, "text/html");
    expect(doc.querySelectorAll('link[rel="preload"]')).toHaveLength(0);
    const element = doc.getElementById(inlineDataId)!;
    expect(element.tagName).toBe("SCRIPT");
    expect(element.getAttribute("type")).toBe("application/json");
    expect(element.parentElement?.tagName).toBe("HEAD");
    expect(element.nextElementSibling?.tagName).toBe("STYLE");
    expect(JSON.parse(element.textContent!)).toEqual(
      Object.fromEntries(Object.entries(files).map(([url, text]) => [url, JSON.parse(text)])),
    );
  });

  it("names in its app data the build the page's own scripts are of, whatever the file beside it says", () => {
    // A second build with Netlify's build cache restored: the file still named the cached build when this step read
    // it, and Gatsby's loader, seeing another build named, reloaded the page without end.
    const html = withInlineData(
      page(preload("/page-data/app-data.json")) + '<script>window.___webpackCompilationHash="8d71fe";</script>',
      read,
    );
    const element = new DOMParser().parseFromString(html, "text/html").getElementById(inlineDataId)!;
    expect(JSON.parse(element.textContent!)).toEqual({
      "/page-data/app-data.json": { webpackCompilationHash: "8d71fe" },
    });
  });

  it("sets the app data of a page an earlier build inlined, kept by Gatsby from the build cache, to the page's build", () => {
    const earlier = withInlineData(
      page(preload("/page-data/app-data.json") + preload("/page-data/sq/d/123.json")),
      read,
    );
    const kept = earlier.replace("</head>", '<script>window.___webpackCompilationHash="9e0c";</script></head>');
    const element = new DOMParser()
      .parseFromString(withInlineData(kept, read), "text/html")
      .getElementById(inlineDataId)!;
    expect(JSON.parse(element.textContent!)).toEqual({
      "/page-data/app-data.json": { webpackCompilationHash: "9e0c" },
      "/page-data/sq/d/123.json": { data: { site: {} } },
    });
  });

  it("writes no '<' into the element, so no text in the data can end it early", () => {
    const html = withInlineData(page(preload("/page-data/privacy-policy/page-data.json")), read);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    const doc = new DOMParser().parseFromString(html, "text/html");
    expect(JSON.parse(doc.getElementById(inlineDataId)!.textContent!)).toEqual({
      "/page-data/privacy-policy/page-data.json": JSON.parse(files["/page-data/privacy-policy/page-data.json"]!),
    });
  });

  it("leaves a page without data preloads, and every other preload, as they were", () => {
    const other = '<link rel="preload" href="/font.woff2" as="font" crossorigin="anonymous"/>';
    expect(withInlineData(page(other), read)).toBe(page(other));
  });

  it("reads the files from the build, and fails it when a preloaded file is missing or not JSON", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "inline-data-"));
    try {
      mkdirSync(path.join(dir, "page-data", "sq", "d"), { recursive: true });
      writeFileSync(path.join(dir, "page-data", "app-data.json"), files["/page-data/app-data.json"]!);
      writeFileSync(path.join(dir, "page-data", "sq", "d", "9.json"), "not json");
      const fromBuild = readBuiltFile(dir);
      const html = withInlineData(page(preload("/page-data/app-data.json")), fromBuild);
      expect(html).toContain(`${files["/page-data/app-data.json"]}}</script>`);
      expect(() => withInlineData(page(preload("/page-data/gone/page-data.json")), fromBuild)).toThrow(/ENOENT/);
      expect(() => withInlineData(page(preload("/page-data/sq/d/9.json")), fromBuild)).toThrow(SyntaxError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
