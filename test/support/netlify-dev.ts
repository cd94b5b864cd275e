import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { freePort } from "./free-port";
import { until } from "./until";

const root = path.resolve(__dirname, "../..");

export interface NetlifyDev {
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Netlify's own local runtime (netlify-cli) over the build in public/, as
 * `npm run serve:netlify` runs it: the static files with their _headers, the
 * functions bundled and run as Lambda runs them (require(esm) off), and a
 * Blobs sandbox under .netlify/, where the functions keep the waitlist, as on
 * a new Netlify site. Offline, and with edge functions off: their runtime
 * (Deno) is a download. `env` reaches the functions.
 */
export async function startNetlifyDev(env: NodeJS.ProcessEnv): Promise<NetlifyDev> {
  const netlifyCli = path.join(root, "node_modules/netlify-cli/bin/run.js");
  const [port, staticPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [
      netlifyCli,
      "dev",
      "--offline",
      "--internal-disable-edge-functions",
      "--dir",
      "public",
      "--no-open",
      "--port",
      String(port),
      "--staticServerPort",
      String(staticPort),
    ],
    // Its own process group, so that stopping it stops the static server and the functions' workers too.
    { cwd: root, detached: true, env: { ...process.env, SITE_URL: url, ...env } },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
    await exited;
  };
  const functions = readdirSync(path.join(root, "netlify/functions")).length;
  // Ready once it prints its address and every function is loaded.
  const ready = () => {
    if (child.exitCode !== null) throw new Error(`netlify dev exited with ${child.exitCode}`);
    return /Local dev server ready/.test(output) && (output.match(/Loaded function /g) ?? []).length >= functions;
  };
  await until(ready, 90_000).catch(async (error: Error) => {
    await stop();
    throw new Error(`netlify dev did not start (${error.message}):\n${output}`);
  });
  return { url, output: () => output, stop };
}
