import { execFileSync } from "node:child_process";
import path from "node:path";
import { patience } from "../test/support/patience";

/*
 * npm test runs the unit, content and server projects at nice 19, where a
 * test can wait seconds for a core, with TEST_PATIENCE=8 (scripts/test.mjs).
 * Jest's own timeout must stretch with it, not only the tests' own guards.
 */

const root = path.resolve(__dirname, "..");

/** Jest's timeout for a test or hook, as `jest --showConfig` resolves it in an environment with `patienceFactor`. */
function jestTimeout(patienceFactor: string): number | undefined {
  const output = execFileSync(process.execPath, [require.resolve("jest/bin/jest"), "--showConfig"], {
    cwd: root,
    env: { ...process.env, TEST_PATIENCE: patienceFactor },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(output) as { globalConfig: { testTimeout?: number } }).globalConfig.testTimeout;
}

describe("TEST_PATIENCE", () => {
  const saved = process.env.TEST_PATIENCE;
  afterEach(() => {
    if (saved === undefined) delete process.env.TEST_PATIENCE;
    else process.env.TEST_PATIENCE = saved;
  });

  it("stretches Jest's own timeout: a global option, which a project's config cannot set", () => {
    expect(jestTimeout("8")).toBe(40_000);
    // By patience()'s rule: never shorter, never endless.
    for (const nonsense of ["", "0.5", "Infinity"]) expect(jestTimeout(nonsense)).toBe(5_000);
  });

  it("stretches the tests' own guards by its factor, and never shortens them", () => {
    const at = (factor: string) => {
      process.env.TEST_PATIENCE = factor;
      return patience(30_000);
    };
    expect(at("8")).toBe(240_000);
    expect(at("1")).toBe(30_000);
    for (const nonsense of ["0", "0.5", "-3", "many", "Infinity", ""]) expect(at(nonsense)).toBe(30_000);
  });
});
