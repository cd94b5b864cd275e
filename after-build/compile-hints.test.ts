import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { addCompileHints, compileHint } from "./compile-hints";

let dir: string;
const app = "app-0123456789abcdef0123.js";
const script = "(self.webpackChunk=self.webpackChunk||[]).push([[1],{1:function(){}}]);";

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "compile-hints-"));
  mkdirSync(path.join(dir, "~partytown"));
  writeFileSync(path.join(dir, app), script);
  writeFileSync(path.join(dir, "framework-0123456789abcdef0123.js"), "!function(){}();");
  writeFileSync(path.join(dir, "~partytown", "partytown.js"), "/* not loaded by any page */");
  writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>Home</title>");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string) => readFileSync(path.join(dir, name), "utf8");

describe("addCompileHints", () => {
  it("opens every script webpack wrote with the hint, leaving its code as it was", () => {
    expect(addCompileHints(dir).sort()).toEqual([app, "framework-0123456789abcdef0123.js"]);
    expect(read(app)).toBe(compileHint + script);
    expect(read("framework-0123456789abcdef0123.js")).toBe(`${compileHint}!function(){}();`);
    expect(compileHint).toBe("//# allFunctionsCalledOnLoad\n");
  });

  it("leaves pages and scripts outside the top folder alone", () => {
    addCompileHints(dir);
    expect(read("index.html")).toBe("<!doctype html><title>Home</title>");
    expect(read("~partytown/partytown.js")).toBe("/* not loaded by any page */");
  });

  it("adds nothing the second time", () => {
    addCompileHints(dir);
    expect(addCompileHints(dir)).toEqual([]);
    expect(read(app)).toBe(compileHint + script);
  });
});
