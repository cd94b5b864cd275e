import path from "node:path";
import { readEnv, siteSettings } from "../config/env";
import { afterBuildSteps, runAfterBuild } from "./steps";

/*
 * The after-build steps from the command line, for `npm run bench`, which
 * weighs each step that rewrites Gatsby's output on copies of one build:
 *   tsx after-build/cli.ts --list               the steps, as JSON
 *   tsx after-build/cli.ts DIR [--skip a,b]     runs them on DIR
 */
const args = process.argv.slice(2);
if (args[0] === "--list") {
  const steps = afterBuildSteps.map(({ name, why, rewritesGatsbyOutput }) => ({ name, why, rewritesGatsbyOutput }));
  console.log(JSON.stringify(steps));
} else {
  const [dir, flag, names] = args;
  if (!dir || (flag !== undefined && (flag !== "--skip" || !names))) {
    console.error("Usage: tsx after-build/cli.ts --list | DIR [--skip step,step]");
    process.exit(2);
  }
  const siteUrl = siteSettings(readEnv()).siteUrl;
  runAfterBuild(path.resolve(dir), { siteUrl, skip: names ? names.split(",") : [] }).then(
    (lines) => console.log(lines.join("\n")),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
