import { readFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { site } from "../../config/site";

/*
 * What the policies promise, held against what the site does, sentence by sentence where a test can hold one. The
 * sentences are read from the MDX as legal staff write it, components and all (<MinimumAge /> is site.minimumAge).
 */

const text = (slug: string) =>
  matter(readFileSync(path.resolve(__dirname, `../../content/legal/${slug}.mdx`), "utf8")).content.replace(/\s+/g, " ");

/** The text of the `## ` section whose heading matches, up to the next. */
function section(slug: string, heading: RegExp): string {
  const parts = text(slug).split(/ ?## /);
  const found = parts.find((part) => heading.test(part.slice(0, part.search(/[.:]|$/))));
  if (!found) throw new Error(`${slug}.mdx has no section matching ${heading}`);
  return found;
}

const privacy = site.legalPages.privacyPolicy.slug;
const { statement } = site.waitlist.consent;

describe("the consent statement", () => {
  it("names every policy that promises to e-mail a change to it: 'nothing else' leaves none out", () => {
    for (const page of Object.values(site.legalPages)) {
      const changes = section(page.slug, /^Changes/);
      if (/e-mail/.test(changes)) expect([page.title, statement]).toEqual([page.title, expect.stringContaining(page.title)]);
    }
  });
});

describe("the Privacy Policy on age", () => {
  it("says who may join, by the Terms' ages, and that a parent's permission covers the GDPR's consent under 16", () => {
    const children = section(privacy, /^Children/);
    expect(children).toContain("at least <MinimumAge /> years old to join the waitlist");
    expect(children).toMatch(/If you are under <ParentalPermissionAge \/>, you may join only with the permission of a parent or guardian/);
    expect(children).toMatch(/under 16 .*\(Art\. 8 GDPR\)/);
    expect(site.parentalPermissionUnder).toBeGreaterThanOrEqual(16);
  });
});
