import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/*
 * V8 compiles a function the first time it runs, on the main thread, unless
 * the script asks for eager compilation. Nearly every function in Gatsby's
 * bundles (its runtime, Preact, the page components) runs while the page comes
 * alive, so that lazy compilation sat inside the start-up and hydration tasks:
 * about half of hydration on a throttled phone profile. Chromium (136 and
 * later) compiles a script that opens with this comment on the background
 * thread that already parses it while it downloads
 * (https://v8.dev/blog/explicit-compile-hints). To other engines it is only a
 * comment.
 */
export const compileHint = "//# allFunctionsCalledOnLoad\n";

/**
 * Puts the compile hint at the top of every script webpack wrote into
 * publicDir (the build writes no source maps to shift; gatsby-node.ts).
 * Scripts that have it already are left alone. Returns the scripts changed.
 */
export function addCompileHints(publicDir: string): string[] {
  const changed: string[] = [];
  for (const name of readdirSync(publicDir)) {
    if (!name.endsWith(".js")) continue;
    const file = path.join(publicDir, name);
    const code = readFileSync(file, "utf8");
    if (code.startsWith(compileHint)) continue;
    writeFileSync(file, compileHint + code);
    changed.push(name);
  }
  return changed;
}
