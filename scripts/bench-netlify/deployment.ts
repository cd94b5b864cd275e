// What every part of npm run bench:netlify runs on: the functions as Netlify bundles them, called as Netlify calls
// them (with its time limits), over Netlify Blobs (@netlify/blobs' local server), with a stand-in of Netlify's API, a
// real SMTP server and a clock where minutes can pass, every Blobs operation and every message as slow as Netlify's
// and a mail provider's, on that clock (latency.ts).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import FakeTimers from "@sinonjs/fake-timers";
import type { Context } from "@netlify/functions";
import { startLocalBlobs } from "../../test/support/blobs";
import { startNetlifyApi } from "../../test/support/netlify-api";
import { startSmtpServer } from "../../test/support/smtp";
import { blobsBackend } from "./backends";
import { drawMail, invocation, type Latencies, netlifySpeed, seeded, SimulatedTime, slowBlobs } from "./latency";

export const site = "https://jointandem.app";
const functionLimitMs = 60_000;
/** A scheduled function's limit on Netlify. */
const scheduledLimitMs = 30_000;

export type Handler = (request: Request, context: Context) => Promise<Response>;

/** Where the run is, on standard error: minutes pass between the figures. */
export const progress = (line: string) => void process.stderr.write(`… ${line}\n`);
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export type Deployment = Awaited<ReturnType<typeof startDeployment>>;

/** The seed of the latencies' draws: the same run, the same latencies. */
const seed = 49;

/** A deployment, its clock at `start` (ms), at `latencies` (Netlify's speed by default). */
export async function startDeployment({
  start = Date.UTC(2026, 10, 23, 12),
  latencies = netlifySpeed,
}: { start?: number; latencies?: Latencies } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-netlify-"));
  // The functions log a line per failed send and per sweep; counted here, not printed.
  let logLines = 0;
  console.error = () => void logLines++;
  // Date moves on only in the simulation: its jumps, and the latencies (latency.ts), which the sweep's own 20 s budget
  // and the limits read. Not in real time: the stand-ins' own milliseconds are not Netlify's, and would count twice.
  const clock = FakeTimers.withGlobal(globalThis).install({ toFake: ["Date"], now: start });
  const time = new SimulatedTime(
    () => Date.now(),
    (ms) => clock.setSystemTime(ms),
  );
  // A limit fires when a jump passes it, too.
  const ticking = setInterval(() => time.tick(), 10);
  const blobs = await startLocalBlobs({ directory: path.join(dir, "blobs") });
  const slow = slowBlobs(time, blobs.url, latencies.blobs, seed);
  const api = await startNetlifyApi({
    siteId: blobs.siteID,
    token: blobs.token,
    blobsUrl: blobs.url,
    clock: () => Date.now(),
  });
  /**
   * The mail provider refuses recipients until `downUntil` (at once), and takes its latency over each message it
   * takes (simulated, in the bench's process: the SMTP server runs in it); a conversation under way holds the clock.
   */
  const mail = { downUntil: 0, messages: 0 };
  const mailRandom = seeded(seed + 1);
  const smtp = await startSmtpServer(0, {
    deferRecipient: () => Date.now() < mail.downUntil,
    onConnect: () => time.enter(),
    onClose: () => time.leave(),
    beforeData: async () => {
      if (Date.now() < mail.downUntil) return;
      mail.messages++;
      time.leave();
      await time.wait(drawMail(mailRandom, latencies.mail));
      time.enter();
    },
  });
  process.env.NETLIFY_BLOBS_CONTEXT = blobs.context();
  const backend = await blobsBackend(blobs, api, start);
  Object.assign(process.env, {
    // A connection per message, not the pool production keeps: the bench draws each message's time itself, and a
    // pool's idle connections would hold its simulated clock (a conversation under way holds it).
    SMTP_URL: `${smtp.url}?pool=false`,
    // The founders' digest is part of every daily pass.
    FOUNDERS_DIGEST_TO: "founders@jointandem.app",
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
  /**
   * Each function as one instance that Lambda keeps warm: its module's state (the waitlist it opened, a sweep under
   * way) lives from one call to the next, until a call is killed at its limit. Lambda then resets the execution
   * environment, and the next call starts a fresh one: here the bundle imported anew. (Kept, a killed call's waits,
   * never answered, would hold every later call of the instance.)
   */
  const resets = new WeakMap<object, () => void>();
  async function bundled<F extends (...args: never[]) => Promise<unknown>>(name: string): Promise<F> {
    const href = pathToFileURL(bundles.find((bundle) => bundle.name === name)!.module).href;
    let instance = 0;
    const load = async () => ((await import(`${href}?instance=${instance++}`)) as { default: F }).default;
    let current = await load();
    const call = (async (...args: Parameters<F>) => current(...args)) as F;
    resets.set(call, () => void load().then((fresh) => (current = fresh)));
    return call;
  }
  const signup = await bundled<Handler>("waitlist-signup");
  const leave = await bundled<Handler>("waitlist-leave");
  const confirm = await bundled<Handler>("waitlist-confirm");
  /**
   * `work` as a call of `fn` with Netlify's limit of `limitMs`, on the simulated clock: "killed" past it, and then, as
   * Netlify stops it, none of its Blobs requests or waits is answered any more, and `fn`'s instance is reset.
   */
  function limited<T>(fn: object, limitMs: number, work: () => Promise<T>): Promise<T | "killed"> {
    const state = { killed: false };
    return invocation.run(state, async () => {
      let cancel = () => {};
      const limit = new Promise<"killed">(
        (resolve) =>
          (cancel = time.deadline(limitMs, () => {
            state.killed = true;
            resets.get(fn)?.();
            resolve("killed");
          })),
      );
      const outcome = await Promise.race([work(), limit]);
      cancel();
      return outcome;
    });
  }
  /** A scheduled function's run, with Netlify's 30 s limit. */
  const scheduled = (handler: () => Promise<Response>) => () => limited(handler, scheduledLimitMs, handler);
  /** waitlist-sweep, every five minutes on Netlify. */
  const sweep = scheduled(await bundled<() => Promise<Response>>("waitlist-sweep"));
  /** waitlist-daily, at midnight UTC: the retention, anything still owed, the founders' digest. */
  const daily = scheduled(await bundled<() => Promise<Response>>("waitlist-daily"));

  /** One function call as Netlify makes it: its reply, then its waitUntil work, all within the 60 s limit. */
  function invoke(handler: Handler, request: Request, ip: string) {
    const pending: Promise<unknown>[] = [];
    const context = { ip, waitUntil: (promise: Promise<unknown>) => void pending.push(promise) } as unknown as Context;
    return limited(handler, functionLimitMs, async () => {
      const response = await handler(request, context);
      await Promise.allSettled(pending);
      return response;
    });
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

  /** What `work` cost: store operations, API calls and milliseconds of the simulated clock (Netlify's speed). */
  async function measured<T>(work: () => Promise<T>) {
    const ops = await backend.ops();
    const calls = api.calls.length;
    const began = Date.now();
    const result = await work();
    const ms = Date.now() - began;
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
    time,
    latencies,
    /** The Blobs operations slowed so far, 503s and backoffs among them. */
    blobsCounts: slow.counts,
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
      slow.undo();
      clearInterval(ticking);
      time.close();
      clock.uninstall();
      await Promise.all([blobs.stop(), smtp.close(), api.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
