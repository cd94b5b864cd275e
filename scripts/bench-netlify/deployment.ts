// What every part of npm run bench:netlify runs on: the functions as Netlify bundles them, called as Netlify calls
// them (with its time limits), over Netlify Blobs (@netlify/blobs' local server), with a stand-in of Netlify's API, a
// mail provider as strict as a real one (mail.ts: its rate, connections, daily quota, bounces and complaints) and a
// clock where minutes can pass, every Blobs operation and every message as slow as Netlify's and a mail provider's, on
// that clock (latency.ts). The functions' own requests reach the site's functions (site-fetch.ts): a drain of the
// mail owed, and the provider's bounces and complaints.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import FakeTimers from "@sinonjs/fake-timers";
import type { Context } from "@netlify/functions";
import { drainPath } from "../../netlify/drain-start";
import { startLocalBlobs } from "../../test/support/blobs";
import { testTopicArn } from "../../test/support/mail-webhooks";
import { startNetlifyApi } from "../../test/support/netlify-api";
import { mailEventPaths } from "../../waitlist/routes";
import { blobsBackend } from "./backends";
import { instancePool, onInstance, type InstancePool } from "./instances";
import { invocation, type Latencies, netlifySpeed, SimulatedTime, slowBlobs } from "./latency";
import {
  benchProviders,
  mailedAfterSuppression,
  mailedTwice,
  readEvent,
  refusedForGood,
  startBenchMail,
  type BenchProvider,
  type ProviderFigures,
  type ProviderReport,
} from "./mail";
import { routeSiteFetches } from "./site-fetch";

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

/** A call the functions made of the site's own functions: a drain, or a bounce or complaint the provider posted. */
export interface SiteCall {
  kind: "drain" | "mail event";
  /** When it began, and its run time to the end of its waitUntil work (ms, simulated). */
  at: number;
  ms: number;
  /** Its reply's bytes, headers included. */
  bytes: number;
  killed: boolean;
  /** What a mail event told, and of whom. */
  event?: "bounce" | "complaint";
  addresses: string[];
}

/** A reply's bytes, as the months bill them: its body and headers. */
export async function replyBytes(reply: Response) {
  const body = (await reply.arrayBuffer()).byteLength;
  return body + [...reply.headers].reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
}

/**
 * A deployment, its clock at `start` (ms), at `latencies` (Netlify's speed by default), sending through `provider`
 * (SES in production by default; its bounces and complaints posted to the site).
 */
export async function startDeployment({
  start = Date.UTC(2026, 10, 23, 12),
  latencies = netlifySpeed,
  provider = "ses",
}: { start?: number; latencies?: Latencies; provider?: BenchProvider } = {}) {
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
   * The mail provider (mail.ts): it refuses recipients until `mail.downUntil` (at once), takes its latency over each
   * message it takes (simulated, in the bench's process: the SMTP server runs in it; a conversation under way holds
   * the clock), and posts its bounces and complaints to the site's SES route (SES only).
   */
  const benchMail = await startBenchMail(time, {
    provider,
    latencies,
    seed: seed + 1,
    eventsUrl: provider === "ses" ? `${site}${mailEventPaths.ses}` : undefined,
  });
  const { server: smtp, mail } = benchMail;
  process.env.NETLIFY_BLOBS_CONTEXT = blobs.context();
  const backend = await blobsBackend(blobs, api, start);
  const environment = {
    // A connection per message, not the pool production keeps: the bench draws each message's time itself, and a
    // pool's idle connections would hold its simulated clock (a conversation under way holds it).
    SMTP_URL: `${smtp.url}?pool=false`,
    // The pace every sender keeps: the provider's own figures.
    MAIL_PROVIDER: benchProviders[provider].name,
    // The site's address, as Netlify sets it: where a function asks for a drain.
    URL: site,
    SES_SNS_TOPIC_ARN: testTopicArn,
    // The founders' digest is part of every daily pass.
    FOUNDERS_DIGEST_TO: "founders@jointandem.app",
    WAITLIST_RATE_LIMIT: "1000000",
    WAITLIST_LINK_RATE_LIMIT: "1000000",
  };
  Object.assign(process.env, environment);
  // The functions as Netlify deploys them: bundled by Netlify's own bundler with netlify.toml's settings, and
  // imported once the environment is Netlify's, since they open their waitlist from it.
  const bundles = JSON.parse(
    execFileSync(process.execPath, [path.join(__dirname, "..", "bundle-functions.mjs"), path.join(dir, "bundles")], {
      encoding: "utf8",
    }),
  ) as { name: string; module: string }[];
  /**
   * Each function's instances (instances.ts): a call goes to an idle one, and a new one starts cold (its bundle imported
   * anew, its module state its own) when every one is busy, as Lambda scales out by calls under way; one killed at its
   * limit is reset. Keyed by the handler the parts call, which runs a call on an instance of its own.
   */
  const pools = new WeakMap<object, InstancePool<unknown>>();
  async function bundled<F extends (...args: never[]) => Promise<unknown>>(name: string): Promise<F> {
    const href = pathToFileURL(bundles.find((bundle) => bundle.name === name)!.module).href;
    const pool = instancePool(
      async (number) => ((await import(`${href}?instance=${number}`)) as { default: F }).default,
      (work) => time.busy(work),
    );
    const handler = (async (...args: Parameters<F>) => onInstance(pool, (own) => own(...args))) as F;
    pools.set(handler, pool as unknown as InstancePool<unknown>);
    return handler;
  }
  /** `handler`'s instances. */
  const poolOf = <F>(handler: F) => pools.get(handler as object) as unknown as InstancePool<F>;
  let ip = 0;
  const nextIp = () => `198.51.${(++ip >> 8) & 255}.${ip & 255}`;
  const signup = await bundled<Handler>("waitlist-signup");
  const leave = await bundled<Handler>("waitlist-leave");
  const confirm = await bundled<Handler>("waitlist-confirm");
  const drain = await bundled<Handler>("waitlist-drain");
  const mailEvents = await bundled<Handler>("waitlist-mail-events");
  /**
   * `work` as a call with Netlify's limit of `limitMs`, on the simulated clock: "killed" past it, and then, as Netlify
   * stops it, none of its Blobs requests or waits is answered any more (and its instance is reset: instances.ts).
   */
  function limited<T>(limitMs: number, work: (killed: () => boolean) => Promise<T>): Promise<T | "killed"> {
    const state = { killed: false };
    return invocation.run(state, async () => {
      let cancel = () => {};
      const limit = new Promise<"killed">(
        (resolve) =>
          (cancel = time.deadline(limitMs, () => {
            state.killed = true;
            resolve("killed");
          })),
      );
      const outcome = await Promise.race([work(() => state.killed), limit]);
      cancel();
      return outcome;
    });
  }
  /** A scheduled function's run, with Netlify's 30 s limit. */
  const scheduled = (handler: () => Promise<Response>) => () =>
    limited(scheduledLimitMs, (killed) => onInstance(poolOf(handler), (own) => own(), killed));
  /** waitlist-sweep, every five minutes on Netlify. */
  const sweep = scheduled(await bundled<() => Promise<Response>>("waitlist-sweep"));
  /** waitlist-daily, at midnight UTC: the retention, anything still owed, the founders' digest. */
  const daily = scheduled(await bundled<() => Promise<Response>>("waitlist-daily"));

  /**
   * One function call as Netlify makes it: its reply, then its waitUntil work, all within the 60 s limit. `reply` is
   * the caller's answer, as soon as the function gives it; `done` the call's end, its waitUntil work's included.
   */
  function call(handler: Handler, request: Request, ip: string) {
    const pending: Promise<unknown>[] = [];
    const context = { ip, waitUntil: (promise: Promise<unknown>) => void pending.push(promise) } as unknown as Context;
    let replied: (response: Response) => void = () => {};
    const answer = new Promise<Response>((resolve) => (replied = resolve));
    const done = limited(functionLimitMs, (killed) =>
      onInstance(
        poolOf(handler),
        async (own) => {
          const response = await own(request, context);
          replied(response);
          await Promise.allSettled(pending);
          return response;
        },
        killed,
      ),
    );
    return { reply: Promise.race([answer, done]), done };
  }
  /** One function call, once it has ended: its reply. */
  const invoke = (handler: Handler, request: Request, ip: string) => call(handler, request, ip).done;

  /** The site's functions the functions called, in the order they ended, and those still under way. */
  const siteCalls: SiteCall[] = [];
  const underWay = new Set<Promise<unknown>>();
  /** When the site first took a bounce or complaint of each address (answered 200), by address. */
  const suppressedAt = new Map<string, number>();
  const stopped = (status = 502) => new Response("The function was stopped at its limit.\n", { status });
  /** A drain asked for: its 202 to the caller at once, its sending on in its own call. */
  async function drainCall(request: Request) {
    const at = Date.now();
    const { reply, done } = call(drain, request, nextIp());
    const ended = done.then(async (outcome) => {
      const killed = outcome === "killed";
      const bytes = killed ? 0 : await replyBytes(outcome.clone());
      siteCalls.push({ kind: "drain", at, ms: Date.now() - at, bytes, killed, addresses: [] });
    });
    underWay.add(ended);
    void ended.finally(() => underWay.delete(ended));
    const answer = await reply;
    return answer === "killed" ? stopped() : answer;
  }
  /** A bounce or complaint the provider posts: answered once the function has ended. */
  async function mailEventCall(request: Request) {
    const at = Date.now();
    const { kind: event, addresses } = readEvent(await request.clone().text());
    const outcome = await invoke(mailEvents, request, nextIp());
    const killed = outcome === "killed";
    siteCalls.push({
      kind: "mail event",
      at,
      ms: Date.now() - at,
      bytes: killed ? 0 : await replyBytes(outcome.clone()),
      killed,
      event,
      addresses,
    });
    if (killed) return stopped();
    if (outcome.status === 200) {
      for (const address of addresses) if (!suppressedAt.has(address)) suppressedAt.set(address, Date.now());
    }
    return outcome;
  }
  const routes = routeSiteFetches(time, {
    site,
    routes: { [drainPath]: drainCall, [mailEventPaths.ses]: mailEventCall },
    snsCertificate: benchMail.key?.certificate,
    held: [new URL(api.url).origin],
  });
  /** The provider's figures so far (mail.ts). */
  function providerFigures(): ProviderFigures {
    const { profile } = benchMail;
    const { deliveredTo: _deliveredTo, ...counters } = smtp.counters;
    return {
      name: benchProviders[provider].name,
      ratePerSecond: profile.ratePerSecond ?? null,
      connections: "connections" in profile ? profile.connections : null,
      dailyLimit: profile.dailyLimit ?? null,
      ...counters,
      mailedAfterSuppression: mailedAfterSuppression(smtp.deliveries, suppressedAt),
      mailedTwice: mailedTwice(smtp.deliveries),
    };
  }
  /** Those figures, and the signups refused for good by the provider's replies: read from the whole list. */
  const providerReport = async (): Promise<ProviderReport> => ({
    ...providerFigures(),
    refusedForGood: refusedForGood(await backend.store.all(), suppressedAt),
  });
  /** Until every call of the site's functions under way and every event the provider owes the site has ended. */
  async function settled() {
    for (;;) {
      await smtp.settled();
      if (underWay.size === 0) return;
      await Promise.all([...underWay]);
    }
  }
  /**
   * Moves the simulated clock on to `at` (ms), as a wait of its own: whatever runs meanwhile (a drain, a bounce on its
   * way, a founder's command) runs on that clock, in order. Never back in time.
   */
  async function advanceTo(at: number) {
    if (at > Date.now()) await time.wait(at - Date.now());
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
    /** The provider's name, its limits and its counters (test/support/mail-provider.ts). */
    provider: { name: provider, profile: benchMail.profile, counters: smtp.counters },
    /** The environment the functions run with: the founders' commands send as they do. */
    environment,
    siteCalls,
    providerFigures,
    providerReport,
    /** The addresses whose complaint the site took: it removed them, as a leave. */
    complainedOf: () => siteCalls.flatMap((one) => (one.event === "complaint" && !one.killed ? one.addresses : [])),
    settled,
    advanceTo,
    clock,
    time,
    latencies,
    /** The Blobs operations slowed so far, 503s and backoffs among them. */
    blobsCounts: slow.counts,
    functions: bundles.length,
    /** A function's instances (instances.ts): how many were started, and how many a part's calls ran on. */
    instancesOf: <F>(handler: F) => poolOf(handler),
    signup,
    leave,
    confirm,
    sweep,
    daily,
    invoke,
    call,
    post,
    opened,
    pressed,
    nextIp,
    measured,
    logLines: () => logLines,
    async stop() {
      // Nothing of this deployment's goes on past it: a drain or a bounce due later would reach the next one's.
      await settled();
      routes.undo();
      slow.undo();
      clearInterval(ticking);
      time.close();
      clock.uninstall();
      await Promise.all([blobs.stop(), smtp.close(), api.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
