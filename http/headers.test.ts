import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { htmlPages, netlifyHeaders } from "../after-build/headers-file";
import { cacheControlFor, contentSecurityPolicy, immutable, inlineHashes, revalidate, sha256 } from "./headers";

describe("cacheControlFor", () => {
  it.each([
    ["/", revalidate],
    ["/index.html", revalidate],
    ["/privacy-policy/index.html", revalidate],
    ["/page-data/index/page-data.json", revalidate],
    ["/page-data/app-data.json", revalidate],
    ["/favicon.svg", revalidate],
    ["/robots.txt", revalidate],
    ["/app-4ce85f7ab9c29b0884e3.js", immutable],
    ["/styles.627488e25942d783a1ea.css", immutable],
    ["/454-bb7bbc892f9d2a7e4074.js", immutable],
    ["/static/1a2b3c/og.png", immutable],
  ])("%s: %s", (urlPath, expected) => {
    expect(cacheControlFor(urlPath)).toBe(expected);
  });
});

describe("inline hashes and the policy", () => {
  it("hashes the exact text of inline scripts, styles and style attributes", () => {
    const hashes = inlineHashes(
      '<html><head><style>body{margin:0}</style><script src="/app.js"></script><script>alert(1)</script></head>' +
        '<body><div style="outline:none"></div><script type="application/ld+json">{"a":1}</script></body></html>',
    );
    expect(hashes.scripts).toEqual(["'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='", sha256('{"a":1}')]);
    expect(hashes.styles).toEqual([sha256("body{margin:0}")]);
    expect(hashes.styleAttributes).toEqual([sha256("outline:none")]);
  });

  it("lets a page run its own inline code and this site's files, and nothing else", () => {
    const page = '<html><head><script>a()</script><style>b{}</style></head><body><p style="c:d">x</p></body></html>';
    const policy = contentSecurityPolicy(inlineHashes(page));
    const sources = (name: string) =>
      policy
        .split("; ")
        .find((directive) => directive.split(" ")[0] === name)
        ?.split(" ")
        .slice(1);
    expect(sources("default-src")).toEqual(["'none'"]);
    expect(sources("script-src")).toEqual(["'self'", sha256("a()")]);
    expect(sources("style-src")).toEqual(["'self'", sha256("b{}"), "'unsafe-hashes'", sha256("c:d")]);
    // No other origin, no inline code but the page's own, no eval.
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
  });

  it("lets the waitlist form post and fetch to this site only, and no other site frame it", () => {
    const policy = contentSecurityPolicy(inlineHashes("<p>x</p>")).split("; ");
    expect(policy).toContain("form-action 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
  });

  it("names only directives every engine knows, so none logs the policy itself as an error", () => {
    // WebKit logs "Unrecognized Content-Security-Policy directive" for manifest-src on every page; the
    // site has no manifest, and default-src 'none' refuses one where an engine knows the directive.
    const names = contentSecurityPolicy(inlineHashes("<p>x</p>"))
      .split("; ")
      .map((directive) => directive.split(" ")[0]);
    expect(names).toEqual([
      "default-src",
      "script-src",
      "style-src",
      "img-src",
      "font-src",
      "connect-src",
      "base-uri",
      "form-action",
      "frame-ancestors",
    ]);
  });
});

describe("pages of a build and Netlify's _headers", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "headers-"));
    for (const [name, content] of Object.entries({
      "index.html": "<script>a()</script>",
      "404.html": "<p>404</p>",
      "privacy-policy/index.html": "<script>b()</script>",
      "_gatsby/slices/x.html": "<p>internal</p>",
      "page-data/index/page-data.json": "{}",
      "app-0123456789abcdef0123.js": "",
      "favicon.svg": "<svg/>",
    })) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), content);
    }
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("serves each index.html at its folder", () => {
    expect(htmlPages(dir).map((page) => page.routes)).toEqual([["/404.html"], ["/"], ["/privacy-policy/"]]);
  });

  it("writes the security headers once for all paths, one CSP per page and one Cache-Control per file, between the adapter's markers", () => {
    const file = netlifyHeaders(dir);
    expect(file.startsWith("# gatsby-adapter-netlify start\n/*\n")).toBe(true);
    expect(file.endsWith("\n# gatsby-adapter-netlify end\n")).toBe(true);
    const rules = file
      .trim()
      .split("\n")
      .slice(1, -1)
      .join("\n")
      .split(/\n(?=\/)/);
    expect(rules[0]).toMatch(/^\/\*\n {2}strict-transport-security: max-age=63072000; includeSubDomains; preload\n/);
    expect(rules[0]).not.toContain("content-security-policy");
    // On /* it would be a second value for every file that has its own.
    expect(rules[0]).not.toContain("cache-control");
    expect(file).toContain("/favicon.svg\n  cache-control: public, max-age=0, must-revalidate");
    const csp = (route: string) =>
      rules.find((rule) => rule.startsWith(`${route}\n`))!.match(/content-security-policy: (.*)/)![1];
    expect(csp("/")).toContain(sha256("a()"));
    expect(csp("/privacy-policy/")).toContain(sha256("b()"));
    expect(csp("/privacy-policy/")).not.toContain(sha256("a()"));
    expect(file).toContain("/app-0123456789abcdef0123.js\n  cache-control: public, max-age=31536000, immutable");
    expect(file).toContain("/page-data/*\n  cache-control: public, max-age=0, must-revalidate");
    expect(file).not.toContain("_gatsby");
  });
});
