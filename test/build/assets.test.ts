import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { builtPage } from "./built-page";

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

  it("references only scripts that exist", () => {
    const scripts = [...doc.querySelectorAll("script[src]")].map((script) => script.getAttribute("src")!);
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((src) => !existsSync(path.join(publicDir, src)))).toEqual([]);
  });
});
