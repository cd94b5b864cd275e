import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { patience } from "./patience";

const root = path.resolve(__dirname, "../..");

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
  /** Ends the server as a supervisor does (SIGTERM) and resolves once it has exited. */
  stop: () => Promise<void>;
}

/** `npm run serve` (tsx server/serve.ts) as its own process, on an ephemeral port. */
function serveProcess(env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  // A DATABASE_URL of the shell's would move every test's signups into that database: only a test's own counts.
  const { DATABASE_URL: _shells, ...inherited } = process.env;
  return spawn(process.execPath, ["--import", "tsx", path.join(root, "server/serve.ts")], {
    cwd: root,
    env: { ...inherited, HOST: "127.0.0.1", PORT: "0", ...env },
  });
}

/**
 * Starts the server and waits for its address. Its output keeps being read
 * (and kept for `output()`), so a server that logs every request never blocks.
 */
export function spawnServe(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = serveProcess(env);
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The server did not start:\n${output}`)), patience(20_000));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /running at http:\/\/localhost:(\d+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${match[1]}`, output: () => output, stop: () => stop(child) });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`The server exited with ${code}:\n${output}`));
    });
  });
}

function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.kill("SIGTERM");
  return exited;
}

/** Runs serve.ts to completion (for start-up refusals). */
export function runServe(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = serveProcess(env);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

/**
 * `npm run waitlist -- …` as one process (node with tsx's hooks, no tsx wrapper around it: a SIGKILL ends the
 * command itself, as a crash would). Only `env` names the store: never the shell's DATABASE_URL or Netlify variables.
 */
export function spawnWaitlist(args: string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|WAITLIST_DB|NETLIFY_)/.test(name)),
  );
  return spawn(process.execPath, ["--import", "tsx", path.join(root, "cli/main.ts"), ...args], {
    cwd: root,
    env: { ...inherited, ...env },
  });
}

/**
 * `npm run waitlist -- …` (tsx cli/main.ts) as its own process, as a founder runs it: for what Jest cannot load
 * in its own (the report's charts: Vega is an ES module that awaits at its top level). Asynchronous, so that the
 * test's own servers (Netlify's stand-ins) answer it meanwhile.
 */
export function runWaitlist(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnWaitlist(args, env);
  let [stdout, stderr] = ["", ""];
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
