// What every part of npm run bench:netlify runs on: the functions as Netlify bundles them, called as Netlify calls
// them (with its time limits), over the run's store, with @netlify/blobs' local server, a stand-in of Netlify's API, a
// real SMTP server and a clock where minutes can pass.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { register } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import FakeTimers from "@sinonjs/fake-timers";
import type { Context } from "@netlify/functions";
import { startLocalBlobs } from "../../test/support/blobs";
import { startNetlifyApi } from "../../test/support/netlify-api";
import { startSmtpServer } from "../../test/support/smtp";
import { blobsBackend, postgresBackend } from "./backends";

// The functions keep the list in Netlify Database when its client, which a founder installs to turn it on, imports:
// here its stand-in (pg's Pool over NETLIFY_DB_URL), as the bundle test maps it. A Blobs run sets no NETLIFY_DB_URL.
register(pathToFileURL(path.join(__dirname, "../../test/support/netlify-database-hooks.mjs")).href);

export const site = "https://jointandem.app";
const functionLimitMs = 60_000;
/** A scheduled function's limit on Netlify. */
const scheduledLimitMs = 30_000;

export type Handler = (request: Request, context: Context) => Promise<Response>;

/** Where the run is, on standard error: minutes pass between the figures. */
export const progress = (line: string) => void process.stderr.write(`… ${line}\n`);
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export type Deployment = Awaited<ReturnType<typeof startDeployment>>;

export type StoreKind = "blobs" | "postgres";

/** The store a new site gets: Netlify Database is what a founder turns on. */
export const defaultStore: StoreKind = "blobs";

/** A deployment over `storeKind`, its clock at `start` (ms). */
export async function startDeployment(storeKind: StoreKind, { start = Date.UTC(2026, 10, 23, 12) } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-netlify-"));
  // The functions log a line per failed send and per sweep; counted here, not printed.
  let logLines = 0;
  console.error = () => void logLines++;
  // Date moves on in real time as well as in the simulation's jumps: the sweep's own 20 s budget reads it.
  const clock = FakeTimers.withGlobal(globalThis).install({ toFake: ["Date"], now: start, shouldAdvanceTime: true });
  const blobs = await startLocalBlobs({ directory: path.join(dir, "blobs") });
  const api = await startNetlifyApi({
    siteId: blobs.siteID,
    token: blobs.token,
    blobsUrl: blobs.url,
    clock: () => Date.now(),
  });
  /** The mail server refuses recipients until `downUntil`, and takes `ms` over each message. */
  const mail = { downUntil: 0, ms: 0 };
  const smtp = await startSmtpServer(0, {
    deferRecipient: () => Date.now() < mail.downUntil,
    beforeData: () => new Promise((resolve) => setTimeout(resolve, mail.ms)),
  });
  // Every function has the site's Blobs store (on Netlify Database, for its notes of mail owed); NETLIFY_DB_URL is
  // the database's, which postgresBackend sets, and no Blobs run's.
  process.env.NETLIFY_BLOBS_CONTEXT = blobs.context();
  delete process.env.NETLIFY_DB_URL;
  const backend = storeKind === "postgres" ? await postgresBackend(start) : await blobsBackend(blobs, api, start);
  Object.assign(process.env, {
    SMTP_URL: smtp.url,
    WAITLIST_RATE_LIMIT: "1000000",
    WAITLIST_LINK_RATE_LIMIT: "1000000",
  });
  // The functions as Netlify deploys them: bundled by Netlify's own bundler with netlify.toml's settings, and
  // imported once the environment is Netlify's, since they open their waitlist from it.
  const bundles = JSON.parse(
    execFileSync(process.execPath, [path.join(__dirname, "..", "bundle-functions.mjs"), path.join(dir, "bundles")], {
      encoding: "utf8",
    }),
  ) as { name: string; module: string }[];
  const bundled = async (name: string) =>
    (
      (await import(pathToFileURL(bundles.find((bundle) => bundle.name === name)!.module).href)) as {
        default: unknown;
      }
    ).default;
  const signup = (await bundled("waitlist-signup")) as Handler;
  const leave = (await bundled("waitlist-leave")) as Handler;
  const confirm = (await bundled("waitlist-confirm")) as Handler;
  /** A scheduled function's run, with Netlify's 30 s limit: "killed" past it (in process it runs on; Netlify would stop it). */
  const scheduled = (handler: () => Promise<Response>) => async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<"killed">((resolve) => (timer = setTimeout(() => resolve("killed"), scheduledLimitMs)));
    const outcome = await Promise.race([handler(), limit]);
    clearTimeout(timer);
    return outcome;
  };
  /** waitlist-sweep, every five minutes on Netlify. */
  const sweep = scheduled((await bundled("waitlist-sweep")) as () => Promise<Response>);
  /** waitlist-daily, at midnight UTC: the retention, anything still owed, the founders' digest. */
  const daily = scheduled((await bundled("waitlist-daily")) as () => Promise<Response>);

  /** One function call as Netlify makes it: its reply, then its waitUntil work, all within the 60 s limit. */
  async function invoke(handler: Handler, request: Request, ip: string) {
    const pending: Promise<unknown>[] = [];
    const context = { ip, waitUntil: (promise: Promise<unknown>) => void pending.push(promise) } as unknown as Context;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<"killed">((resolve) => (timer = setTimeout(() => resolve("killed"), functionLimitMs)));
    const work = (async () => {
      const response = await handler(request, context);
      await Promise.allSettled(pending);
      return response;
    })();
    const outcome = await Promise.race([work, limit]);
    clearTimeout(timer);
    return outcome;
  }
  /** The form's POST of one address. */
  const post = (email: string) =>
    new Request(`${site}/`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/plain", referer: `${site}/` },
      body: new URLSearchParams({ "form-name": "waitlist", email, "bot-field": "" }).toString(),
    });
  /** A link from an e-mail as a visitor opens it: a GET of its page. */
  const opened = (link: string) => new Request(link, { headers: { accept: "text/html" } });
  /** That page's button: a POST of the link's token to `path`. */
  const pressed = (link: string, path: string) =>
    new Request(`${site}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: site },
      body: new URLSearchParams({ token: new URL(link).searchParams.get("token")! }).toString(),
    });
  let ip = 0;
  const nextIp = () => `198.51.${(++ip >> 8) & 255}.${ip & 255}`;

  /** What `work` cost: store operations, API calls and milliseconds. */
  async function measured<T>(work: () => Promise<T>) {
    const ops = await backend.ops();
    const calls = api.calls.length;
    const began = performance.now();
    const result = await work();
    const ms = performance.now() - began;
    return { result, ops: (await backend.ops()) - ops, apiCalls: api.calls.length - calls, ms };
  }

  return {
    backend,
    store: backend.store,
    blobs,
    api,
    smtp,
    mail,
    clock,
    functions: bundles.length,
    signup,
    leave,
    confirm,
    sweep,
    daily,
    invoke,
    post,
    opened,
    pressed,
    nextIp,
    measured,
    logLines: () => logLines,
    async stop() {
      clock.uninstall();
      await backend.stop();
      await Promise.all([blobs.stop(), smtp.close(), api.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
