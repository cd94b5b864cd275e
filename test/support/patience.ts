/**
 * How long a test waits before it calls something hung, in ms. These are
 * guards against a hang, never a measure of speed (speed goes to the
 * benches), so they stretch when the run shares its CPU: npm test runs the
 * unit, content and server projects at a low priority beside the build and
 * the browser tests (scripts/test.mjs), where a slow machine starved a 1 s
 * scrypt past Jest's 5 s. That run sets TEST_PATIENCE (a factor, at least 1).
 */
export function patience(ms: number): number {
  const factor = Number(process.env.TEST_PATIENCE ?? "1");
  return Number.isFinite(factor) && factor > 1 ? ms * factor : ms;
}
