import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { run, UsageError } from "./cli";
import { StoreError, WaitlistStore } from "./store";

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "cli-"));
  env = { WAITLIST_DB: path.join(dir, "waitlist.db") };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function seed() {
  const store = new WaitlistStore(env.WAITLIST_DB!);
  store.add({
    email: "ada@example.com",
    emailKey: "ada@example.com",
    source: "start",
    at: new Date("2025-06-01T09:00:00Z"),
  });
  store.add({
    email: '"Byron, Lord"@example.com',
    emailKey: '"byron, lord"@example.com',
    source: "develop",
    at: new Date("2025-06-02T09:00:00Z"),
  });
  store.close();
}

describe("npm run waitlist", () => {
  it("counts the addresses", () => {
    seed();
    expect(run(["count"], env)).toBe("2 addresses on the waitlist.");
  });

  it("exports CSV that a spreadsheet reads back, quotes and commas included", () => {
    seed();
    expect(parse(run(["export", "--format", "csv"], env), { columns: true })).toEqual([
      { email: "ada@example.com", created_at: "2025-06-01T09:00:00.000Z", source: "start" },
      { email: '"Byron, Lord"@example.com', created_at: "2025-06-02T09:00:00.000Z", source: "develop" },
    ]);
  });

  it("exports JSON to a file", () => {
    seed();
    const out = path.join(dir, "signups.json");
    expect(run(["export", "--format", "json", "--out", out], env)).toBe(`Wrote ${out}.`);
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual([
      { email: "ada@example.com", createdAt: "2025-06-01T09:00:00.000Z", source: "start" },
      { email: '"Byron, Lord"@example.com', createdAt: "2025-06-02T09:00:00.000Z", source: "develop" },
    ]);
  });

  it("explains a missing store, a missing or unknown format and an unknown command", () => {
    expect(() => run(["count"], env)).toThrow(StoreError);
    expect(() => run(["count"], env)).toThrow(
      /No waitlist store at .*\(npm start\); set WAITLIST_DB to read another file\./,
    );
    seed();
    expect(() => run(["export"], env)).toThrow(new UsageError("Say which format: --format csv or --format json."));
    expect(() => run(["export", "--format", "xml"], env)).toThrow(
      /Unknown format "xml": use --format csv or --format json\./,
    );
    expect(() => run(["delete-all"], env)).toThrow(/Unknown command "delete-all"/);
  });

  it("prints its usage without a command", () => {
    expect(run([], env)).toMatch(/^Usage: npm run waitlist -- <command>/);
  });
});
