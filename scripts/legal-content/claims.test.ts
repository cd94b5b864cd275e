import { readFileSync } from "node:fs";
import path from "node:path";
import { site } from "../../config/site";
import { claimEnds, pastClaimWarnings } from "./claims";

describe("claimEnds", () => {
  it.each([
    ["Q4 2025", "2025-12-31"],
    ["Q1 2026", "2026-03-31"],
    ["H1 2026", "2026-06-30"],
    ["February 2028", "2028-02-29"],
    ["2027", "2027-12-31"],
    ["2026-03-01", "2026-03-01"],
  ])("reads %s as ending on %s", (claim, ends) => {
    expect(claimEnds(claim)).toBe(ends);
  });

  it.each(["500+", "Free", "Q5 2025", "Smarch 2026", "2026-02-30"])("finds no date in %s", (claim) => {
    expect(claimEnds(claim)).toBeUndefined();
  });
});

describe("pastClaimWarnings", () => {
  const source = readFileSync(path.resolve(__dirname, "../../config/site.ts"), "utf8");

  it("warns of the launch the spec claims (Q4 2025) once it is past, naming its line and where it is shown", () => {
    const line = source.split("\n").findIndex((text) => /^\s*launch: "/.test(text)) + 1;
    expect(pastClaimWarnings({ launch: "Q4 2025" }, "2026-11-27", source)).toEqual([
      `config/site.ts: claims.launch (line ${line}) is "Q4 2025", which ended on 2025-12-31, before today (2026-11-27), and the landing page, the Privacy Policy (<LaunchDate />) and the confirmation e-mail still show it as to come. It is the client's figure, fixed by the specification, so this check does not fail on it or change it: ask the client for the new one, and write it there.`,
    ]);
  });

  it("says nothing of a date still to come, its last day included, or of a claim that is no date", () => {
    expect(pastClaimWarnings({ launch: "Q4 2025" }, "2025-12-31")).toEqual([]);
    expect(pastClaimWarnings({ creatorsInterested: "500+", earlyAccessPrice: "Free" }, "2030-01-01")).toEqual([]);
  });

  it("reads the claims of config/site.ts, and leaves the client's string as it is", () => {
    expect(site.claims.launch).toBe("Q4 2025");
    expect(pastClaimWarnings(site.claims, "2026-11-27")).toEqual([
      expect.stringContaining('claims.launch is "Q4 2025"'),
    ]);
  });
});
