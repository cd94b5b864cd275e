// npm test: every check a pull request must pass, on both of a small machine's
// cores, in two lanes that start together.
//
// - The build's lane, at the machine's normal priority, output as it comes:
//   the type check, lint, the build as Netlify does it, then the tests that
//   read the build (the build project) and the browser tests (e2e). Those
//   measure time (the 7 s reset, the 200 ms scroll, a page come to rest), so
//   they run one file at a time.
// - The lane that needs no build, at nice 19, output in one piece at its end:
//   the unit, content and server projects. They check the spec's timings with
//   fake timers or clocks passed in, and take the CPU the build and the
//   browsers leave idle. At nice 19 they can wait many seconds for a core, so
//   their guards against a hang wait 8 times as long (test/support/patience.ts):
//   at nice 10, CI's machine starved a 1 s scrypt past Jest's 5 s.
//
// With TEST_OTHER_NODES (folders holding a `node`, separated as in PATH; CI
// names Node 22's and 26's), the lane that needs no build then runs the server
// files where Node's version shows on each of them, all at once, in the time
// the browser tests still take. The figures are in docs/testing.md. Arguments
// go to every Jest run (`npm test -- --ci`). To run one file, call Jest:
// `npx jest e2e/form.test.ts`.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";

const jest = createRequire(import.meta.url).resolve("jest/bin/jest");
const extra = process.argv.slice(2);
// Half the cores each; on two, each Jest run is one process (in band).
const workers = Math.max(1, Math.floor(availableParallelism() / 2));

/**
 * Runs `command` with `args`; resolves with its exit code. `quiet` keeps its
 * output until it ends, under `title`. `stop()` ends it early, its output dropped.
 */
function run(command, args, { nice = 0, quiet = false, env = {}, title } = {}) {
  const [file, fileArgs] = nice > 0 ? ["nice", ["-n", String(nice), command, ...args]] : [command, args];
  const child = spawn(file, fileArgs, {
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    env: { ...process.env, ...env },
  });
  const kept = [];
  if (quiet) for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => kept.push(chunk));
  let stopped = false;
  const done = new Promise((resolve) => {
    // A command that cannot start (no `nice` on this machine) fails with its reason.
    child.once("error", (error) => {
      console.error(`${[command, ...args].join(" ")} did not start: ${error.message}`);
      resolve(1);
    });
    child.once("close", (code, signal) => {
      if (quiet && !stopped)
        process.stdout.write(Buffer.concat([...(title ? [Buffer.from(`${title}\n`)] : []), ...kept]));
      resolve(code ?? (signal ? 1 : 0));
    });
  });
  const stop = () => {
    stopped = true;
    child.kill("SIGTERM");
  };
  return { done, stop };
}

const jestArgs = (projects) => [jest, ...extra, `--maxWorkers=${workers}`, "--selectProjects", ...projects];
const jestRun = (projects, options) => run(process.execPath, jestArgs(projects), options);

/**
 * The server files that meet Node itself: SQLite's native module, Postgres's
 * driver, Unicode's tables (ICU), SMTP, the CLI and the environment's checks,
 * and npm start as a process of its own (tsx), killed and started again. The
 * rest of the server project runs on this Node only: the endpoints' contract
 * on every adapter, the Blobs and Postgres stores' own suites, the Netlify
 * functions and CLI (Netlify runs them on 24), and hostile HTTP.
 */
const meetNode = [
  "config/",
  "cli/",
  "http/",
  "after-build/",
  "waitlist/mail/",
  "waitlist/stores/sqlite-store",
  "test/server/(durability|signup-source|postgres-serve|production-build|static|confirmation-email)[.]test",
];

const noBuild = ["unit", "content", "server"];
const fromBuild = ["build", "e2e"];
const otherNodes = (process.env.TEST_OTHER_NODES ?? "").split(path.delimiter).filter(Boolean);
const sideOptions = { nice: 19, quiet: true, env: { TEST_PATIENCE: "8" } };

/** Runs `meetNode` on the Node in `folder`; resolves with what failed, if it did. */
function otherNode(folder) {
  const node = path.join(folder, "node");
  const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout?.trim() || node;
  const env = { ...sideOptions.env, PATH: `${folder}${path.delimiter}${process.env.PATH}` };
  const title = `\nNode ${version}: the server files that meet Node itself`;
  const { done, stop } = run(node, [...jestArgs(["server"]), "--", ...meetNode], { ...sideOptions, env, title });
  return {
    done: done.then((code) => (code === 0 ? [] : [`the server files that meet Node itself, on Node ${version}`])),
    stop,
  };
}

/**
 * The lane that needs no build: its projects, then every other Node at once,
 * so that each has a core once the browser tests end (on a machine that
 * starves this lane, they end first). Beside the browser tests' last minutes,
 * at nice 19, Node 22 and 26 took 93 and 99 s one after the other, and 215 s
 * at once; both ways they ended with the browser tests. Resolves with what
 * failed.
 */
function sideLane() {
  let current = [];
  const done = (async () => {
    const own = jestRun(noBuild, sideOptions);
    current = [own];
    const failed = (await own.done) === 0 ? [] : [noBuild.join(", ")];
    current = otherNodes.map(otherNode);
    return [...failed, ...(await Promise.all(current.map((each) => each.done))).flat()];
  })();
  return { done, stop: () => current.forEach((each) => each.stop()) };
}

const side = sideLane();

const checks = ["typecheck", "lint", "build:netlify"];
for (const script of checks) {
  const code = await run("npm", ["run", script]).done;
  if (code !== 0) {
    side.stop();
    console.error(`\nnpm run ${script} failed; the ${noBuild.join(", ")} projects were stopped.`);
    process.exit(1);
  }
}
const [buildCode, sideFailed] = await Promise.all([jestRun(fromBuild).done, side.done]);
const failed = [...(buildCode !== 0 ? [fromBuild.join(", ")] : []), ...sideFailed];
if (failed.length > 0) {
  console.error(`\nJest failed in: ${failed.join("; ")}.`);
  process.exit(1);
}
const others = otherNodes.length > 0 ? `, and the server files that meet Node itself on ${otherNodes.length} more` : "";
console.log(`\nThe type check, lint, the build and every Jest project passed on Node ${process.version}${others}.`);
