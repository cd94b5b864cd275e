import { readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { builtPage } from "./built-page";
import { requiredSections } from "../../config/legal-rules";
import { isoDate } from "../../waitlist/policies";
import { readEnv, siteSettings } from "../../config/env";

/** The dated changes the policy's own file gives, newest first, as YYYY-MM-DD. */
function updatesOf(slug: string): { date: string; summary: string }[] {
  const source = readFileSync(path.resolve(__dirname, `../../content/legal/${slug}.mdx`), "utf8");
  const updates = (matter(source).data.updates ?? []) as { date: unknown; summary: string }[];
  return updates.map(({ date, summary }) => ({ date: isoDate(date)!, summary }));
}

const written = (date: string) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(date));

const verification = 'meta[name="tiktok-developers-site-verification"]';

describe.each([
  ["/privacy-policy/", "Privacy Policy"],
  ["/terms-of-service/", "Terms of Service"],
])("public%sindex.html", (route, title) => {
  const doc = builtPage(route);
  const slug = route.replaceAll("/", "");

  it("carries the verification meta tag with a token, for crawlers that run no JavaScript", () => {
    const tags = doc.querySelectorAll(verification);
    expect(tags).toHaveLength(1);
    expect(tags[0]!.getAttribute("content")?.trim()).not.toBe("");
  });

  it("has the title as its only h1 and the spec's effective date, with the last dated change its file gives", () => {
    expect([...doc.querySelectorAll("h1")].map((h1) => h1.textContent)).toEqual([title]);
    const line = doc.querySelector("main header p")?.textContent;
    const updates = updatesOf(slug);
    // The specification's date, word for word; a change since is "Last updated", never a new effective date.
    expect(line).toBe(
      updates[0] ? `Effective June 1, 2025 · Last updated ${written(updates[0].date)}` : "Effective June 1, 2025",
    );
    expect(doc.querySelector("time")?.getAttribute("datetime")).toBe("2025-06-01");
    // Every dated change, newest first, in a disclosure that opens without JavaScript.
    expect([...doc.querySelectorAll("main header details li")].map((li) => li.textContent)).toEqual(
      updates.map(({ date, summary }) => `${written(date)}: ${summary}`),
    );
  });

  it("has every required section as an h2 with an id the table of contents links to", () => {
    const headings = [...doc.querySelectorAll("h2[id]")];
    const rules = requiredSections[slug]!;
    let from = 0;
    for (const rule of rules) {
      const at = headings.findIndex((h2, index) => index >= from && rule.heading.test(h2.textContent ?? ""));
      expect([rule.name, at >= 0]).toEqual([rule.name, true]);
      from = at + 1;
    }
    const tocTargets = [...doc.querySelectorAll('nav[aria-label="Contents"] a')].map((a) => a.getAttribute("href"));
    expect(tocTargets).toEqual(headings.map((h2) => `#${h2.id}`));
  });

  it("has Back to Home, Join the Waitlist, and its own title, description and canonical URL", () => {
    expect(
      [...doc.querySelectorAll("a")].find((a) => /Back to Home/.test(a.textContent ?? ""))?.getAttribute("href"),
    ).toBe("/");
    // Plain links that work before and without JavaScript; the page has no <button> at all.
    const join = [...doc.querySelectorAll("aside a")].find((a) => a.textContent === "Join the Waitlist");
    expect(join?.getAttribute("href")).toBe("/#waitlist");
    const header = [...doc.querySelectorAll('header nav[aria-label="Main"] a')].map((a) => a.getAttribute("href"));
    expect(header).toEqual(["/#features", "/#waitlist"]);
    expect(doc.querySelectorAll("button")).toHaveLength(0);
    expect(doc.title).toBe(`${title} | Tandem`);
    expect(doc.querySelector('meta[name="description"]')?.getAttribute("content")).toBeTruthy();
    expect(doc.querySelector('link[rel="canonical"]')?.getAttribute("href")).toMatch(new RegExp(`${route}$`));
  });

  it("shows names and addresses from the site config, not MDX placeholders", () => {
    expect(doc.body.innerHTML).not.toMatch(/<(SiteName|ContactEmail|GroupCap|MinimumAge)/);
    expect(doc.querySelector('main a[href^="mailto:"]')).not.toBeNull();
  });
});

describe("public/index.html", () => {
  it("never carries the verification meta tag", () => {
    expect(builtPage("/").querySelector(verification)).toBeNull();
  });
});

describe("the Terms of Service", () => {
  const text = builtPage("/terms-of-service/").body.textContent?.replace(/\s+/g, " ") ?? "";

  it("states the spec's age rules and group cap with the configured figures", () => {
    expect(text).toContain("You must be at least 13 years old");
    expect(text).toMatch(/If you are under 18, you may use it only with the permission of a parent or legal guardian/);
    expect(text).toContain("group collaborations of up to 50 creators in one chat");
    expect(text).toMatch(/sign in with your TikTok account/);
  });
});

describe("the Privacy Policy", () => {
  const text = builtPage("/privacy-policy/").body.textContent?.replace(/\s+/g, " ") ?? "";

  it("says what the waitlist stores, that early access is free and that fees are not set", () => {
    expect(text).toContain("We collect the e-mail address you give us");
    expect(text).toContain("Early access to Tandem is free");
    expect(text).toMatch(/prices and terms are not set yet; we will show them clearly before anyone pays/);
  });
});

describe("public/privacy-policy/index.html", () => {
  const doc = builtPage("/privacy-policy/");
  const text = (doc.querySelector("main")?.textContent ?? "").replace(/\s+/g, " ");

  it("names the controller from the build's settings, with its postal address, and where it is met again", () => {
    const { controllerName, controllerAddress } = siteSettings(readEnv());
    const controller = `${controllerName}, ${controllerAddress}`;
    expect(text).toContain(`The controller of your personal information`);
    expect(text).toContain(`is ${controller}.`);
    expect(text).toContain(`or by post to ${controller}.`);
  });

  it("names the legal bases, the host the build was made for, and the safeguard for transfers to the United States", () => {
    expect(text).toMatch(/your consent .*Art\. 6\(1\)\(a\) GDPR/);
    expect(text).toMatch(/our legitimate interest .*Art\. 6\(1\)\(f\)/);
    // The tests read the build of npm run build:netlify (NETLIFY=true): Netlify, unless HOSTING_PROVIDER names another.
    const { hostingProvider } = siteSettings(readEnv({ ...process.env, NETLIFY: "true" }));
    expect(text).toContain(`our hosting provider, ${hostingProvider}, which serves the website`);
    expect(text).toMatch(/Standard Contractual Clauses/);
  });
});
