// npm test: every check a pull request must pass, on both of a small machine's
// cores, in three lanes that start together.
//
// - The timed lane, at the machine's normal priority, output as it comes: the
//   build as Netlify does it, then the browser files that measure time (the
//   7 s reset, the 200 ms scroll, a page come to rest, a starved CPU) and the
//   server files that do (`timedServer`: a provider's pace, Netlify's round
//   trips), one file at a time.
// - The untimed lane, at nice 19: the type check and lint beside the build,
//   then, once the build is there, the tests that read it (the build project),
//   the browser files that measure no time (`untimed` below) and the server
//   files of the Netlify CLI and bundles (`moved`).
// - The lane that needs no build, at nice 19, two files at once: the unit,
//   content and server projects. They check the spec's timings with fake
//   timers or clocks passed in.
// - With TEST_OTHER_NODES, every other Node at once, in whichever nice lane
//   ends its own files first.
//
// The nice lanes take the CPU the timed files leave idle, and print in one
// piece as each of their steps ends. A type check, lint or build that fails
// stops every lane. At nice 19 a test can wait many seconds for a core, so
// their guards against a hang wait 8 times as long (test/support/patience.ts):
// at nice 10, CI's machine starved a 1 s scrypt past Jest's 5 s.
//
// TEST_OTHER_NODES names folders holding a `node`, separated as in PATH (CI
// names Node 22's and 26's): on each, the server files where Node's version
// shows (`meetNode`). The figures are in docs/testing.md. Arguments go to
// every Jest run (`npm test -- --ci`). To run one file, call Jest:
// `npx jest e2e/form.test.ts`.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";

const jest = createRequire(import.meta.url).resolve("jest/bin/jest");
const extra = process.argv.slice(2);
// Half the cores each; on two, each Jest run is one process (in band).
const workers = Math.max(1, Math.floor(availableParallelism() / 2));
/**
 * The lane that needs no build runs two files at once even on two cores: its server files mostly wait (a provider's
 * pace, Netlify's round trips as the stand-ins time them, a server started and stopped), and one at a time it ended
 * last by minutes, in 964 s, while the machine's two cores were busy 58 % of the run (18.7 CPU minutes in 16). At
 * nice 19 its second file takes only what the other lanes leave idle.
 */
const sideWorkers = Math.max(2, workers);

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

const jestArgs = (projects, maxWorkers = workers) => [
  jest,
  ...extra,
  `--maxWorkers=${maxWorkers}`,
  "--selectProjects",
  ...projects,
];

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
  "waitlist/email-address",
  "waitlist/stores/sqlite-store",
  "test/server/(durability|signup-source|postgres-serve|production-build|static|confirmation-email)[.]test",
];

/**
 * The browser files that measure no time: no timer's delay, no scroll come to
 * rest, no starved CPU. They keep their pages' own order of events (a script
 * added after the first paint) on any load, so they run in the untimed lane.
 * Every other file in e2e/, a new one too, runs in the timed lane.
 */
const untimed = ["attribution", "confirm", "leave", "netlify-dev", "print", "report", "site", "support"];
const e2eFiles = readdirSync(new URL("../e2e/", import.meta.url)).filter((file) => file.endsWith(".test.ts"));
const e2ePattern = (files) => `/e2e/(${files.map((file) => file.replace(/[.]/g, "[.]")).join("|")})$`;
const [untimedFiles, timedFiles] = [true, false].map((wanted) =>
  e2eFiles.filter((file) => untimed.includes(file.replace(/[.]test[.]ts$/, "")) === wanted),
);

/**
 * The server files the untimed lane takes from the lane that needs no build,
 * which ends last, alone on one core: it ends sooner without them.
 */
const moved = ["/test/server/netlify-(cli|bundles)[.]test[.]ts$"];
/**
 * The server files that measure a real clock (a provider's pace and its throttles, Netlify's round trips and a
 * function's hard stop) run in the timed lane, one file at a time with its browser files: beside a second file of the
 * lane that needs no build, a burst drew a throttle the pace had spaced for, and a daily pass ended before its stop.
 */
const timedServer = ["/test/server/(mail-pace|netlify-at-speed)[.]test[.]ts$"];
const { projects } = createRequire(import.meta.url)("../jest.config.js");
const serverIgnores = projects.find((project) => project.displayName === "server").testPathIgnorePatterns;

const noBuild = ["unit", "content", "server"];
const otherNodes = (process.env.TEST_OTHER_NODES ?? "").split(path.delimiter).filter(Boolean);
const sideOptions = { nice: 19, quiet: true, env: { TEST_PATIENCE: "8" } };

/** Runs `meetNode` on the Node in `folder`; resolves with what failed, if it did. */
async function otherNode(folder) {
  const node = path.join(folder, "node");
  const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout?.trim() || node;
  const env = { ...sideOptions.env, PATH: `${folder}${path.delimiter}${process.env.PATH}` };
  const title = `\nNode ${version}: the server files that meet Node itself`;
  const code = await tracked(node, [...jestArgs(["server"]), "--", ...meetNode], { ...sideOptions, env, title });
  return code === 0 ? [] : [`the server files that meet Node itself, on Node ${version}`];
}

/** Every run under way, to stop them all when a check fails. */
const running = new Set();
/** Starts `command` as run() does, kept in `running` until it ends; resolves with its exit code. */
function tracked(command, args, options) {
  const started = run(command, args, options);
  running.add(started);
  return started.done.finally(() => running.delete(started));
}
/** Stops every lane and ends npm test: `what` failed. */
function stopAll(what) {
  for (const each of running) each.stop();
  console.error(`\n${what} failed; every lane was stopped.`);
  process.exit(1);
}

/** The build, at the machine's normal priority; a failed one stops every lane. */
const built = tracked("npm", ["run", "build:netlify"]).then((code) => {
  if (code !== 0) stopAll("npm run build:netlify");
});

/** The lane that needs no build, at nice 19: the unit, content and server projects. Resolves with what failed. */
async function sideLane() {
  const args = ["--testPathIgnorePatterns", ...serverIgnores, ...moved, ...timedServer];
  const code = await tracked(process.execPath, [...jestArgs(noBuild, sideWorkers), ...args], sideOptions);
  laneFree();
  return code === 0 ? [] : [noBuild.join(", ")];
}

/** Once either nice lane has run its own files: the other Nodes start there. */
let laneFree;
const aLaneIsFree = new Promise((resolve) => (laneFree = resolve));

/**
 * The server files that meet Node itself, on every other Node at once, as
 * soon as a nice lane is free. Resolves with what failed.
 */
async function otherNodesLane() {
  await aLaneIsFree;
  return (await Promise.all(otherNodes.map(otherNode))).flat();
}

/**
 * The untimed lane, at nice 19: the type check and lint beside the build (either
 * failing stops every lane), then the build project, the untimed browser files
 * and the moved server files. Resolves with what failed.
 */
async function untimedLane() {
  for (const script of ["typecheck", "lint"]) {
    if ((await tracked("npm", ["run", script], { ...sideOptions, title: `\nnpm run ${script}` })) !== 0)
      stopAll(`npm run ${script}`);
  }
  await built;
  const title = "\nThe build's tests, the untimed browser files, the Netlify CLI's and bundles'";
  const patterns = ["--", "/test/build/", e2ePattern(untimedFiles), ...moved];
  const code = await tracked(process.execPath, [...jestArgs(["build", "e2e", "server"]), ...patterns], {
    ...sideOptions,
    title,
  });
  laneFree();
  return code === 0 ? [] : [title.trim()];
}

/**
 * The timed lane, at normal priority once the build is there: the browser files and the server files that measure
 * time, one at a time.
 */
async function timedLane() {
  await built;
  const args = [...jestArgs(["e2e", "server"]), "--", e2ePattern(timedFiles), ...timedServer];
  const code = await tracked(process.execPath, args);
  return code === 0 ? [] : ["the timed browser and server files"];
}

const failed = (await Promise.all([sideLane(), untimedLane(), timedLane(), otherNodesLane()])).flat();
if (failed.length > 0) {
  console.error(`\nJest failed in: ${failed.join("; ")}.`);
  process.exit(1);
}
const others = otherNodes.length > 0 ? `, and the server files that meet Node itself on ${otherNodes.length} more` : "";
console.log(`\nThe type check, lint, the build and every Jest project passed on Node ${process.version}${others}.`);
