import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { precompress } from "./precompress";

let dir: string;
const page = `<!doctype html><title>Home</title>${"<p>grow. together.</p>".repeat(50)}`;
const script = `console.log(${JSON.stringify("collaborate ".repeat(200))});`;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "precompress-"));
  mkdirSync(path.join(dir, "page-data", "index"), { recursive: true });
  mkdirSync(path.join(dir, "page-data", "404.html"), { recursive: true });
  writeFileSync(path.join(dir, "index.html"), page);
  writeFileSync(path.join(dir, "app-0123456789abcdef0123.js"), script);
  writeFileSync(
    path.join(dir, "page-data", "index", "page-data.json"),
    JSON.stringify({ path: "/", x: "y".repeat(500) }),
  );
  writeFileSync(path.join(dir, "favicon.svg"), "<svg/>");
  writeFileSync(path.join(dir, "og-image.png"), Buffer.alloc(2000));
  writeFileSync(path.join(dir, "app-0123456789abcdef0123.js.map"), "{}".repeat(1000));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const files = () => readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();

describe("precompress", () => {
  it("writes a brotli and a gzip copy beside each page, script and data file", async () => {
    await precompress(dir);
    for (const name of ["index.html", "app-0123456789abcdef0123.js", "page-data/index/page-data.json"]) {
      const original = readFileSync(path.join(dir, name));
      expect(brotliDecompressSync(readFileSync(path.join(dir, `${name}.br`))).equals(original)).toBe(true);
      expect(gunzipSync(readFileSync(path.join(dir, `${name}.gz`))).equals(original)).toBe(true);
    }
  });

  it("leaves images, source maps and files too small to gain alone", async () => {
    await precompress(dir);
    for (const name of ["og-image.png", "app-0123456789abcdef0123.js.map", "favicon.svg"]) {
      expect([name, existsSync(path.join(dir, `${name}.br`)), existsSync(path.join(dir, `${name}.gz`))]).toEqual([
        name,
        false,
        false,
      ]);
    }
  });

  it("removes copies left from an earlier build and never compresses a copy", async () => {
    writeFileSync(path.join(dir, "app-fedcba9876543210fedc.js.br"), "stale");
    writeFileSync(path.join(dir, "index.html.gz"), "stale");
    await precompress(dir);
    const once = files();
    await precompress(dir);
    expect(files()).toEqual(once);
    expect(once).not.toContain("app-fedcba9876543210fedc.js.br");
    expect(once.filter((name) => /\.(br|gz)\.(br|gz)$/.test(name))).toEqual([]);
    expect(gunzipSync(readFileSync(path.join(dir, "index.html.gz"))).toString()).toBe(page);
  });

  it("reports what it compressed", async () => {
    const summary = await precompress(dir);
    expect(summary.files).toBe(4);
    expect(summary.bytes).toBe(Buffer.byteLength(page) + Buffer.byteLength(script) + 519 + 6);
    expect(summary.brotliBytes).toBeLessThan(summary.bytes / 4);
  });
});
