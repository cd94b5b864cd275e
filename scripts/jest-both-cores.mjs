// npm test's last step: every Jest project, on both of a small machine's cores.
//
// The browser tests (the e2e project) measure time: the 7 s reset, the 200 ms
// scroll, a page come to rest. They run one file at a time, at the machine's
// normal priority, with their output as it comes. The other projects check
// the spec's timings with fake timers or clocks passed in: they run beside the
// browsers at a lower priority (nice 10), so they take the CPU the browsers
// leave idle and never hold up a browser's timer.
// Their output comes in one piece when they end. On two cores, one run after
// the other took 953 s; side by side, the browser tests took 757 s (640 alone)
// and the others ended inside them (docs/testing.md).
//
// Arguments go to both runs: `npm test -- --ci`. To run one file, call Jest:
// `npx jest e2e/form.test.ts`.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";

const jest = createRequire(import.meta.url).resolve("jest/bin/jest");
const extra = process.argv.slice(2);

/** Runs Jest on `projects` in `workers` workers; resolves with its exit code. `quiet` keeps its output until it ends. */
function run(projects, { workers, nice = 0, quiet = false }) {
  const args = [jest, ...extra, `--maxWorkers=${workers}`, "--selectProjects", ...projects];
  const [command, commandArgs] =
    nice > 0 ? ["nice", ["-n", String(nice), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, commandArgs, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
  const kept = [];
  if (quiet) for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => kept.push(chunk));
  return new Promise((resolve) => {
    // A run that cannot start (no `nice` on this machine) fails with its reason.
    child.once("error", (error) => {
      console.error(`Jest on ${projects.join(", ")} did not start: ${error.message}`);
      resolve(1);
    });
    child.once("close", (code, signal) => {
      if (quiet) process.stdout.write(Buffer.concat(kept));
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const browsers = ["e2e"];
const others = ["unit", "content", "server", "build"];
// Half the cores each; on two, each run is one process (Jest runs in band).
const workers = Math.max(1, Math.floor(availableParallelism() / 2));
const [browserCode, otherCode] = await Promise.all([
  run(browsers, { workers }),
  run(others, { workers, nice: 10, quiet: true }),
]);
const failed = [browserCode !== 0 && browsers, otherCode !== 0 && others].filter(Boolean).flat();
if (failed.length > 0) {
  console.error(`\nJest failed in the ${failed.join(", ")} project${failed.length > 1 ? "s" : ""}.`);
  process.exit(1);
}
console.log("\nEvery Jest project passed: unit, content, server, build and e2e.");
