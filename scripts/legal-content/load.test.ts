import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadOrExplain, syntaxProblem } from "./load";

const real = readFileSync(path.resolve(__dirname, "../../config/site.ts"), "utf8");
const statementLine = real.split("\n").findIndex((line) => /^\s*statement: `/.test(line)) + 1;

/** config/site.ts with the consent statement's closing backtick typed as a quotation mark, the usual slip. */
const closedWithQuote = real.replace(/permission\.`,\n/, 'permission.",\n');

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "site-slip-"));
  mkdirSync(path.join(dir, "config"));
  file = path.join(dir, "config/site.ts");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("syntaxProblem", () => {
  it("passes config/site.ts as it is", () => {
    expect(syntaxProblem(path.resolve(__dirname, "../../config/site.ts"))).toBeUndefined();
  });

  it("names the consent statement's own line when its closing backtick is a quotation mark, not where TypeScript trips", () => {
    expect(closedWithQuote).not.toBe(real);
    writeFileSync(file, closedWithQuote);
    expect(syntaxProblem(file)).toMatch(
      new RegExp(
        `config/site\\.ts: line ${statementLine} cannot be read: the consent statement \\(waitlist\\.consent\\.statement\\) must start and end with a backtick .* a quotation mark may stand where the closing backtick should be\\.`,
      ),
    );
  });

  it("names the line of any other slip, with what to look for", () => {
    writeFileSync(file, real.replace('    formName: "waitlist",\n', '    formName: "waitlist"\n'));
    const line = real.split("\n").findIndex((text) => text.includes('formName: "waitlist",')) + 2;
    expect(syntaxProblem(file)).toMatch(
      new RegExp(
        `config/site\\.ts: line ${line} cannot be read \\(',' expected\\)\\. Look at that line and the lines just above it`,
      ),
    );
  });
});

describe("loadOrExplain", () => {
  it("hands back what loads", async () => {
    await expect(loadOrExplain(async () => 42)).resolves.toEqual({ loaded: 42 });
  });

  it("turns a file that cannot be read into its line, not a stack trace", async () => {
    writeFileSync(file, closedWithQuote);
    const result = await loadOrExplain(() => import(file));
    expect(result).toEqual({
      problem: expect.stringMatching(new RegExp(`config/site\\.ts: line ${statementLine} cannot be read`)),
    });
  });

  it("turns a name the file does not define into its line", async () => {
    writeFileSync(file, real.replace("${minimumAge} or older", "${minimumAg} or older"));
    const result = await loadOrExplain(() => import(file));
    expect(result).toEqual({
      problem: expect.stringMatching(
        new RegExp(
          `config/site\\.ts: line ${statementLine}: the file cannot be loaded \\(minimumAg is not defined\\)\\.`,
        ),
      ),
    });
  });

  it("throws an error that names no file of ours: the check's own", async () => {
    await expect(loadOrExplain(() => Promise.reject(new Error("out of memory")))).rejects.toThrow("out of memory");
  });
});
