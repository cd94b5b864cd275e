/**
 * @jest-environment node
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import * as cheerio from "cheerio";
import { request, serveBuildForSuite } from "../server/harness";

const publicDir = path.resolve(__dirname, "../../public");
const htmlRoutes = ["/", "/privacy-policy/", "/terms-of-service/", "/404.html"];

/** public/_headers as route → headers, read the way Netlify reads it. */
function netlifyRules(): Map<string, Record<string, string>> {
  const rules = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const line of readFileSync(path.join(publicDir, "_headers"), "utf8").split("\n")) {
    if (line.startsWith("/")) {
      expect(rules.has(line)).toBe(false);
      current = {};
      rules.set(line, current);
    } else if (line.trim()) {
      const at = line.indexOf(":");
      current![line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
  }
  return rules;
}

function fileOf(route: string): string {
  return path.join(publicDir, route.endsWith("/") ? `${route}index.html` : route);
}

describe("public/_headers", () => {
  const rules = netlifyRules();

  it.each(htmlRoutes)("gives %s exactly one CSP, covering every inline script and style of the page", (route) => {
    const withCsp = [...rules].filter(
      ([rule, headers]) => (rule === route || rule === "/*") && headers["Content-Security-Policy"],
    );
    expect(withCsp).toHaveLength(1);
    const policy = withCsp[0]![1]["Content-Security-Policy"]!;
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

  it("tells browsers, on every path, what the site depends on", () => {
    const every = rules.get("/*")!;
    // HTTPS only, for a year at least, so the preload list takes the domain.
    expect(Number(/max-age=(\d+)/.exec(every["Strict-Transport-Security"]!)![1])).toBeGreaterThanOrEqual(31_536_000);
    expect(every["X-Content-Type-Options"]).toBe("nosniff");
    // Never framed: the waitlist form cannot be overlaid by another site.
    expect(every["X-Frame-Options"]).toBe("DENY");
    // A signup's attribution reads the full same-origin Referer; other sites get the origin only.
    expect(every["Referrer-Policy"]).toBe("strict-origin-when-cross-origin");
  });
});

describe("the npm start server and public/_headers", () => {
  const rules = netlifyRules();
  const { url } = serveBuildForSuite(publicDir);

  const assets = readFileSync(path.join(publicDir, "_headers"), "utf8")
    .split("\n")
    .filter((line) => /^\/[^*]+\.(js|css)$/.test(line));
  const routes = [...htmlRoutes, "/privacy-policy", "/page-data/index/page-data.json", "/favicon.svg", assets[0]!];

  it.each(routes)("send the same headers for %s", async (route) => {
    const reply = await request(`${url()}${route}`);
    // The slashless path is a redirect to the page; it carries the headers every path gets.
    expect(reply.status).toBe(route === "/privacy-policy" ? 301 : 200);
    const expected = { ...rules.get("/*"), ...rules.get(route) };
    if (route.startsWith("/page-data/")) Object.assign(expected, rules.get("/page-data/*"));
    for (const [name, value] of Object.entries(expected)) {
      expect([name, reply.headers[name.toLowerCase()]]).toEqual([name, value]);
    }
  });
});
