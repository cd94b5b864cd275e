/**
 * @jest-environment node
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as cheerio from "cheerio";
import { adapterMarkers, netlifyHeaders } from "../../after-build/headers-file";
import { securityHeaders } from "../../http/headers";
import { request, serveBuildForSuite } from "../support/harness";

/*
 * The headers a visitor gets on Netlify, from the build as Netlify builds it
 * (npm run build:netlify: gatsby-adapter-netlify has added its rules to
 * public/_headers), computed by Netlify's own code; and the same from npm start.
 */

const root = path.resolve(__dirname, "../..");
const publicDir = path.join(root, "public");
const htmlRoutes = ["/", "/privacy-policy/", "/terms-of-service/", "/404.html"];
const hashedAssets = readdirSync(publicDir).filter((name) => /^[^/]*[.-][0-9a-f]{16,}\.(js|css)$/.test(name));
const staticFile = (() => {
  const dir = path.join(publicDir, "static");
  const walk = (at: string): string | undefined => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) return walk(file);
      return file;
    }
    return undefined;
  };
  return existsSync(dir) ? walk(dir) : undefined;
})();
const paths = [
  ...htmlRoutes,
  "/page-data/index/page-data.json",
  "/favicon.svg",
  "/og-image.png",
  ...hashedAssets.map((name) => `/${name}`),
  ...(staticFile ? [`/${path.relative(publicDir, staticFile).split(path.sep).join("/")}`] : []),
];

/** What Netlify sends for each path, as its own code (@netlify/headers) reads public/_headers. */
const onNetlify = JSON.parse(
  execFileSync(process.execPath, [path.join(root, "test/support/netlify-headers.mjs"), publicDir, ...paths], {
    encoding: "utf8",
  }),
) as Record<string, Record<string, string>>;

/** Every path a visitor may ask for: each file of the build, and each folder that holds a page. */
function everyPath(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) walk(file);
      else {
        const urlPath = `/${path.relative(dir, file).split(path.sep).join("/")}`;
        found.push(urlPath);
        if (entry.name === "index.html") found.push(urlPath.slice(0, -"index.html".length));
      }
    }
  };
  walk(dir);
  return found;
}

/** Header names are one header whatever their case: lower case, and no name twice. */
function lowerCased(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    expect([name, lower[name.toLowerCase()]]).toEqual([name, undefined]);
    lower[name.toLowerCase()] = value;
  }
  return lower;
}

function fileOf(route: string): string {
  return path.join(publicDir, route.endsWith("/") ? `${route}index.html` : route);
}

describe("the build as Netlify builds it", () => {
  const headersFile = readFileSync(path.join(publicDir, "_headers"), "utf8");

  it("ran Gatsby's Netlify adapter from the project's own dependencies, which wrote the site's rules", () => {
    const [start, end] = adapterMarkers;
    const block = headersFile.slice(headersFile.indexOf(start), headersFile.indexOf(end) + end.length + 1);
    expect(headersFile.trim()).toBe(block.trim());
    expect(block).toBe(netlifyHeaders(publicDir).replace(`\n${end}`, `\n\n${end}`));
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies["gatsby-adapter-netlify"]).toMatch(/^\^1\./);
    // Where Gatsby installs an adapter it does not find.
    expect(existsSync(path.join(root, ".cache", "adapters"))).toBe(false);
  });

  it("never has two rules that match one path set one header to two values, for any path of the build", () => {
    const rules = JSON.parse(
      execFileSync(process.execPath, [path.join(root, "test/support/netlify-header-rules.mjs"), publicDir], {
        encoding: "utf8",
      }),
    ) as { for: string; pattern: string; values: Record<string, string> }[];
    const matchers = rules.map((rule) => ({ ...rule, regExp: new RegExp(rule.pattern) }));
    const conflicts: string[] = [];
    for (const pathname of everyPath(publicDir)) {
      const set = new Map<string, { value: string; rule: string }>();
      for (const rule of matchers.filter(({ regExp }) => regExp.test(pathname))) {
        for (const [name, value] of Object.entries(rule.values)) {
          const earlier = set.get(name.toLowerCase());
          if (earlier && earlier.value !== value) {
            conflicts.push(
              `${pathname}: ${name} is "${earlier.value}" by ${earlier.rule} and "${value}" by ${rule.for}`,
            );
          }
          set.set(name.toLowerCase(), { value, rule: rule.for });
        }
      }
    }
    expect(conflicts).toEqual([]);
    expect(rules.length).toBeGreaterThan(paths.length / 2);
  });

  it.each(paths)("sends %s each header once, whatever the case of its name", (pathname) => {
    lowerCased(onNetlify[pathname]!);
  });
});

describe("the headers on Netlify", () => {
  const netlify = (pathname: string) => lowerCased(onNetlify[pathname]!);

  it.each(htmlRoutes)("give %s one CSP, covering every inline script and style of the page", (route) => {
    const policy = netlify(route)["content-security-policy"]!;
    const directive = (name: string) => policy.split("; ").find((part) => part.startsWith(`${name} `))!;
    const scriptSrc = directive("script-src");
    expect(scriptSrc).not.toMatch(/unsafe-inline|unsafe-eval/);

    // Hash the page independently of the module under test.
    const $ = cheerio.load(readFileSync(fileOf(route), "utf8"));
    const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    const inlineScripts = $("script:not([src])")
      .map((_, el) => $(el).html() ?? "")
      .get();
    expect(inlineScripts.length).toBeGreaterThan(0);
    for (const script of inlineScripts) expect(scriptSrc).toContain(hash(script));
    for (const style of $("style")
      .map((_, el) => $(el).html() ?? "")
      .get()) {
      expect(directive("style-src")).toContain(hash(style));
    }
  });

  it.each(paths)("tell browsers, for %s, what the site depends on", (pathname) => {
    const headers = netlify(pathname);
    // HTTPS only, for a year at least, so the preload list takes the domain.
    expect(Number(/max-age=(\d+)/.exec(headers["strict-transport-security"]!)![1])).toBeGreaterThanOrEqual(31_536_000);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    // Never framed: the waitlist form cannot be overlaid by another site.
    expect(headers["x-frame-options"]).toBe("DENY");
    // A signup's attribution reads the full same-origin Referer; other sites get the origin only (not the adapter's same-origin).
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["x-xss-protection"]).toBe("0");
  });

  it("cache pages and their data for no time, and hashed bundles and static files for a year", () => {
    for (const route of [...htmlRoutes, "/page-data/index/page-data.json", "/favicon.svg"]) {
      expect([route, netlify(route)["cache-control"]]).toEqual([route, "public, max-age=0, must-revalidate"]);
    }
    for (const pathname of paths.filter((candidate) => /[.-][0-9a-f]{16,}\.(js|css)$|^\/static\//.test(candidate))) {
      expect([pathname, netlify(pathname)["cache-control"]]).toEqual([pathname, "public, max-age=31536000, immutable"]);
    }
  });
});

describe("the npm start server and Netlify", () => {
  const { url } = serveBuildForSuite(publicDir);

  it.each([...paths, "/privacy-policy"])("send the same headers for %s", async (pathname) => {
    const reply = await request(`${url()}${pathname}`);
    // The slashless path is a redirect to the page; it carries the headers every path gets.
    expect(reply.status).toBe(pathname === "/privacy-policy" ? 301 : 200);
    const expected = lowerCased(onNetlify[pathname] ?? onNetlify["/favicon.svg"]!);
    if (pathname === "/privacy-policy") {
      for (const name of Object.keys(securityHeaders)) {
        expect([name, reply.headers[name.toLowerCase()]]).toEqual([name, expected[name.toLowerCase()]]);
      }
      return;
    }
    for (const [name, value] of Object.entries(expected)) expect([name, reply.headers[name]]).toEqual([name, value]);
  });
});
