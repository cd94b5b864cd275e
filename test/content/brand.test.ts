import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { site } from "../../config/site";

const root = path.resolve(__dirname, "../..");
const hexColour = /#[0-9a-f]{3,8}\b/gi;

/** The project's own source files under `dir`, without tests. */
function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(tsx?|css|mjs)$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.endsWith(".d.ts"))
    .map((file) => path.join(dir, file));
}

describe("the brand's colours", () => {
  it("are typed in config/site.ts only: styles, pages, e-mails and image scripts read them from there", () => {
    const typed = [
      ...["src", "config", "waitlist", "server", "netlify", "scripts"].flatMap(sources),
      "gatsby-ssr.tsx",
    ]
      .filter((file) => file !== path.join("config", "site.ts"))
      .flatMap((file) => (readFileSync(path.join(root, file), "utf8").match(hexColour) ?? []).map((hex) => `${file}: ${hex}`));
    expect(typed).toEqual([]);
  });

  it("are the only colours of the committed favicon (scripts/make-images.ts writes it)", () => {
    const used = readFileSync(path.join(root, "static/favicon.svg"), "utf8").match(hexColour) ?? [];
    expect(used.length).toBeGreaterThan(0);
    for (const hex of used) expect(Object.values(site.colors)).toContain(hex);
  });
});
