import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "./check-content";

/*
 * npm run check:content when config/site.ts itself cannot load: legal staff in GitHub's web editor read the job's
 * summary, so it must still say which line to fix, in place of a stack trace.
 */

const real = readFileSync(path.resolve(__dirname, "../config/site.ts"), "utf8");
const statementLine = real.split("\n").findIndex((line) => /^\s*statement: `/.test(line)) + 1;

let dir: string;
let summary: string;
let printed: string[];
const saved = process.env.GITHUB_STEP_SUMMARY;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "check-content-"));
  mkdirSync(path.join(dir, "config"));
  summary = path.join(dir, "summary.md");
  process.env.GITHUB_STEP_SUMMARY = summary;
  printed = [];
  jest.spyOn(console, "error").mockImplementation((line: unknown) => void printed.push(String(line)));
});
afterEach(() => {
  jest.restoreAllMocks();
  if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
  else process.env.GITHUB_STEP_SUMMARY = saved;
  rmSync(dir, { recursive: true, force: true });
});

it("names the consent statement's line when a quotation mark closes it, and still writes the job's summary", async () => {
  const site = path.join(dir, "config/site.ts");
  writeFileSync(site, real.replace(/permission\.`,\n/, 'permission.",\n'));
  await expect(main([], () => import(site))).resolves.toBe(1);
  expect(printed).toEqual([
    expect.stringMatching(new RegExp(`config/site\\.ts: line ${statementLine} cannot be read: the consent statement`)),
  ]);
  expect(printed.join("\n")).not.toMatch(/^\s+at /m);
  const markdown = readFileSync(summary, "utf8");
  expect(markdown).toMatch(/^### Policies and consent statement: 1 problem to fix\n/);
  expect(markdown).toMatch(
    new RegExp(`#### \`[^\`]*config/site\\.ts\`\\n\\nLine ${statementLine} cannot be read: the consent statement`),
  );
});

it("runs the check itself when everything loads", async () => {
  const checkContent = jest.fn(() => 0);
  await expect(main(["--fix"], async () => ({ checkContent }))).resolves.toBe(0);
  expect(checkContent).toHaveBeenCalledWith(["--fix"]);
});
