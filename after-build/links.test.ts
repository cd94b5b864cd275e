import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brokenLinks } from "./links";
import { runAfterBuild } from "./steps";

let publicDir: string;
const page = (file: string, links: string[]) => {
  mkdirSync(path.dirname(path.join(publicDir, file)), { recursive: true });
  writeFileSync(
    path.join(publicDir, file),
    `<!doctype html><html><body>${links.map((href) => `<a href="${href}">x</a>`).join("")}</body></html>`,
  );
};

beforeEach(() => {
  publicDir = mkdtempSync(path.join(os.tmpdir(), "links-"));
  page("index.html", [
    "/privacy-policy/",
    "/#waitlist",
    "#features",
    "mailto:hello@example.org",
    "https://other.example/x",
  ]);
  page("privacy-policy/index.html", ["/", "/#waitlist", "https://jointandem.app/privacy-policy/#your-choices", "../"]);
  writeFileSync(path.join(publicDir, "og-image.png"), "");
});
afterEach(() => rmSync(publicDir, { recursive: true, force: true }));

describe("brokenLinks", () => {
  it("finds none when every link on the site leads to a page or a file, and ignores other sites", () => {
    page("terms-of-service/index.html", ["/og-image.png", "/privacy-policy/?from=terms", "/privacy-policy"]);
    expect(brokenLinks(publicDir, "https://jointandem.app")).toEqual([]);
  });

  it("names the page and the link of each route no page has, written as a path or on the site's URL", () => {
    page("terms-of-service/index.html", [
      "/privacy/",
      "https://jointandem.app/cookie-policy/",
      "/og-image.png/",
      "/%E0%A4%A",
    ]);
    expect(brokenLinks(publicDir, "https://jointandem.app")).toEqual([
      "public/terms-of-service/index.html links to /privacy/, which no page of the build has.",
      "public/terms-of-service/index.html links to https://jointandem.app/cookie-policy/, which no page of the build has.",
      "public/terms-of-service/index.html links to /og-image.png/, which no page of the build has.",
      "public/terms-of-service/index.html links to /%E0%A4%A, which no page of the build has.",
    ]);
  });

  it("fails the after-build steps, so the build stops before anything is written", async () => {
    page("index.html", ["/terms/"]);
    await expect(runAfterBuild(publicDir, { siteUrl: "https://jointandem.app" })).rejects.toThrow(
      "public/index.html links to /terms/, which no page of the build has.",
    );
  });
});
