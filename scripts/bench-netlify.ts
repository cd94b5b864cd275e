// npm run bench:netlify [-- --json]: what the Netlify deployment's waitlist
// costs per request as the list grows, whether a viral minute loses
// anything, and what removing its unconfirmed signups 30 days later costs. The real functions' handlers get real web Requests (each with
// Netlify's 60 s limit), over @netlify/blobs' local server and a stand-in of
// Netlify's API that enforces 500 calls a minute per token; a real SMTP
// server takes the mail. Time is simulated where minutes pass (Date only: the
// bursts' spread, the retry schedule, the sweeps every five minutes).
// Prints figures; it is not a test and sets no pass mark.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import FakeTimers from "@sinonjs/fake-timers";
import type { Context } from "@netlify/functions";
import { BlobsStore, hashOf, rowsPerChunk } from "../waitlist/blobs-store";
import { run } from "../waitlist/cli";
import { startLocalBlobs } from "../test/support/blobs";
import { startNetlifyApi } from "../test/server/netlify-api";
import { leaveLinks, startSmtpServer } from "../test/server/smtp";

const sizes = [0, 10_000, 100_000];
const samples = 20;
const burstSize = 1_000;
const functionLimitMs = 60_000;
const site = "https://jointandem.app";
const json = process.argv.includes("--json");
const say = (line = "") => {
  if (!json) console.log(line);
};

type Handler = (request: Request, context: Context) => Promise<Response>;

interface Cost {
  n: number;
  apiCalls: number;
  blobOps: number;
  ms: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-netlify-"));
  // The functions log a line per failed send and per sweep; counted here, not printed.
  let logLines = 0;
  console.error = () => void logLines++;
  const start = Date.UTC(2026, 10, 23, 12);
  const clock = FakeTimers.withGlobal(globalThis).install({ toFake: ["Date"], now: start });
  const blobs = await startLocalBlobs({ directory: path.join(dir, "blobs") });
  const api = await startNetlifyApi({
    siteId: blobs.siteID,
    token: blobs.token,
    blobsUrl: blobs.url,
    clock: () => Date.now(),
  });
  let mailDownUntil = 0;
  const smtp = await startSmtpServer(0, { deferRecipient: () => Date.now() < mailDownUntil });
  Object.assign(process.env, {
    NETLIFY_BLOBS_CONTEXT: blobs.context(),
    SMTP_URL: smtp.url,
    WAITLIST_RATE_LIMIT: "1000000",
    WAITLIST_LEAVE_RATE_LIMIT: "1000000",
  });
  // The functions as Netlify deploys them: bundled by Netlify's own bundler with netlify.toml's settings, and
  // imported once the environment is Netlify's, since they open their waitlist from it.
  const bundles = JSON.parse(
    execFileSync(process.execPath, [path.join(__dirname, "bundle-functions.mjs"), path.join(dir, "bundles")], {
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
  const sweep = (await bundled("waitlist-sweep")) as () => Promise<Response>;
  say(`Functions: Netlify's bundles (${bundles.length}), on Node ${process.versions.node}.`);
  const store = new BlobsStore(blobs.store());

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
  const post = (email: string) =>
    new Request(`${site}/`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/plain", referer: `${site}/` },
      body: new URLSearchParams({ "form-name": "waitlist", email, "bot-field": "" }).toString(),
    });
  let ip = 0;
  const nextIp = () => `198.51.${(++ip >> 8) & 255}.${ip & 255}`;

  // The store's own format, taken from a record and a ledger blob it wrote: the seed copies it.
  await store.add({ email: "probe@example.com", emailKey: "probe@example.com", source: "netlify" });
  await store.markConfirmationSent("probe@example.com", new Date());
  await store.fold();
  const probeFile = findFile(blobs.directory, `signups/${hashOf("probe@example.com")}`);
  const storeDir = probeFile.slice(0, -`signups/${hashOf("probe@example.com")}`.length);
  const template = JSON.parse(readFileSync(probeFile, "utf8")) as Record<string, unknown>;
  const rowTemplate = (
    JSON.parse(readFileSync(path.join(storeDir, "ledger", "000001"), "utf8")) as {
      rows: Record<string, Record<string, unknown>>;
    }
  ).rows[hashOf("probe@example.com")]!;
  await store.remove("probe@example.com", "operator", new Date());
  rmSync(path.join(storeDir, "departures"), { recursive: true, force: true });
  rmSync(path.join(storeDir, "ledger"), { recursive: true, force: true });
  await store.fold();

  let seeded = 0;
  /** Adds listed addresses, mailed and confirmed long ago, straight into the server's files, a ledger blob per thousand. */
  function seedTo(n: number) {
    mkdirSync(path.join(storeDir, "signups"), { recursive: true });
    mkdirSync(path.join(storeDir, "ledger"), { recursive: true });
    for (let from = seeded; from < n; from += rowsPerChunk) {
      const chunk = String(from / rowsPerChunk + 1).padStart(6, "0");
      const rows: Record<string, unknown> = {};
      for (let i = from; i < Math.min(n, from + rowsPerChunk); i++) {
        const email = `listed${i}@example.com`;
        const at = new Date(start - 30 * 86_400_000 + i * 1000).toISOString();
        const fields = {
          email,
          emailKey: email,
          createdAt: at,
          confirmationSentAt: at,
          optInSince: at,
          confirmedAt: at,
        };
        writeFileSync(path.join(storeDir, "signups", hashOf(email)), JSON.stringify({ ...template, ...fields, chunk }));
        rows[hashOf(email)] = { ...rowTemplate, ...fields };
      }
      writeFileSync(path.join(storeDir, "ledger", chunk), JSON.stringify({ rows }));
    }
    seeded = n;
  }

  async function measured<T>(work: () => Promise<T>) {
    await blobs.settled();
    const ops = blobs.operations.length;
    const calls = api.calls.length;
    const began = performance.now();
    const result = await work();
    const ms = performance.now() - began;
    await blobs.settled();
    return { result, blobOps: blobs.operations.length - ops, apiCalls: api.calls.length - calls, ms };
  }

  const perSignup: Cost[] = [];
  const perLeave: Cost[] = [];
  const perConfirm: Cost[] = [];
  const founders: { n: number; apiCalls: number; ms: number }[] = [];
  for (const n of sizes) {
    seedTo(n);
    const signups: Awaited<ReturnType<typeof measured<unknown>>>[] = [];
    const leaves: Awaited<ReturnType<typeof measured<unknown>>>[] = [];
    const confirms: Awaited<ReturnType<typeof measured<unknown>>>[] = [];
    for (let k = 0; k < samples; k++) {
      const email = `sample${n}-${k}@example.com`;
      signups.push(await measured(() => invoke(signup, post(email), nextIp())));
      const delivery = smtp.deliveries.find((candidate) => candidate.envelope.to.includes(email));
      const confirmLink = /https:\/\/\S+\/waitlist\/confirm\?token=\S+/.exec(delivery!.mail.text ?? "")![0];
      confirms.push(
        await measured(async () => {
          await invoke(confirm, new Request(confirmLink, { headers: { accept: "text/html" } }), nextIp());
          return invoke(
            confirm,
            new Request(`${site}/waitlist/confirm`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: site },
              body: new URLSearchParams({ token: new URL(confirmLink).searchParams.get("token")! }).toString(),
            }),
            nextIp(),
          );
        }),
      );
      const link = leaveLinks(delivery!.mail).text;
      leaves.push(
        await measured(async () => {
          await invoke(leave, new Request(link, { headers: { accept: "text/html" } }), nextIp());
          return invoke(
            leave,
            new Request(`${site}/waitlist/leave`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: site },
              body: new URLSearchParams({ token: new URL(link).searchParams.get("token")! }).toString(),
            }),
            nextIp(),
          );
        }),
      );
    }
    const cost = (all: typeof signups): Cost => ({
      n,
      apiCalls: Math.max(...all.map((one) => one.apiCalls)),
      blobOps: median(all.map((one) => one.blobOps)),
      ms: Math.round(median(all.map((one) => one.ms)) * 10) / 10,
    });
    perSignup.push(cost(signups));
    perLeave.push(cost(leaves));
    perConfirm.push(cost(confirms));
    await sweep();
    // The founders' export, through the rate-limited API, at this size.
    const env = { NETLIFY_API_TOKEN: blobs.token, NETLIFY_SITE_ID: blobs.siteID, NETLIFY_API_URL: api.url };
    const exported = await measured(() => run(["export", "--format", "json", "--netlify"], env));
    founders.push({ n, apiCalls: exported.apiCalls, ms: Math.round(exported.ms) });
  }

  /** A thousand signups spread over one minute, then a sweep every five minutes until nothing is owed. */
  async function burst(label: string, mailDownMinutes: number) {
    const began = Date.now();
    mailDownUntil = began + mailDownMinutes * 60_000;
    const emails = Array.from({ length: burstSize }, (_, i) => `${label}${i}@example.com`);
    const acknowledged: string[] = [];
    let killed = 0;
    for (let i = 0; i < emails.length; i += 25) {
      clock.setSystemTime(began + (i * 60_000) / burstSize);
      const replies = await Promise.all(emails.slice(i, i + 25).map((email) => invoke(signup, post(email), nextIp())));
      replies.forEach((reply, j) => {
        if (reply === "killed") killed++;
        else if (reply.status === 200) acknowledged.push(emails[i + j]!);
      });
    }
    let sweeps = 0;
    const owed = async () => (await store.pendingConfirmations()).filter((one) => one.email.startsWith(label)).length;
    while ((await owed()) > 0 && sweeps < 100) {
      clock.setSystemTime(began + 60_000 + sweeps * 300_000 + 300_000 - 60_000);
      await sweep();
      sweeps++;
    }
    const rows = new Set((await store.all()).map((row) => row.email));
    const deliveries = new Map<string, number>();
    let last = began;
    for (const delivery of smtp.deliveries) {
      for (const to of delivery.envelope.to) {
        if (!to.startsWith(label)) continue;
        deliveries.set(to, (deliveries.get(to) ?? 0) + 1);
        last = Math.max(last, delivery.at);
      }
    }
    return {
      signups: burstSize,
      acknowledged: acknowledged.length,
      killed,
      storedOnce: acknowledged.filter((email) => rows.has(email)).length,
      confirmedOnce: acknowledged.filter((email) => deliveries.get(email) === 1).length,
      lost: acknowledged.filter((email) => !rows.has(email) || deliveries.get(email) !== 1).length,
      sweeps,
      lastConfirmationSeconds: Math.round((last - began) / 1000),
    };
  }
  const burstResult = await burst("burst", 0);
  clock.setSystemTime(Date.now() + 3_600_000);
  const mailDownResult = await burst("down", 5);

  // 31 days on, none of the two bursts' signups confirmed: the sweeps every five minutes remove them.
  const unconfirmed = 2 * burstSize;
  clock.setSystemTime(Date.now() + 31 * 86_400_000);
  const listedBefore = (await store.all()).length;
  const retention: { blobOps: number; ms: number }[] = [];
  for (let pass = 0; pass < 20; pass++) {
    const { blobOps, ms } = await measured(() => sweep());
    retention.push({ blobOps, ms: Math.round(ms) });
    clock.setSystemTime(Date.now() + 300_000);
    if ((await store.all()).length === listedBefore - unconfirmed) break;
  }
  const idle = await measured(() => sweep());
  const retentionResult = {
    unconfirmed,
    listed: listedBefore,
    removed: listedBefore - (await store.all()).length,
    sweeps: retention,
    idleSweep: { blobOps: idle.blobOps, ms: Math.round(idle.ms) },
  };

  const figures = {
    perSignup,
    perConfirm,
    perLeave,
    burst: {
      signups: burstResult.signups,
      atN: 100_000,
      storedOnce: burstResult.storedOnce,
      confirmedOnce: burstResult.confirmedOnce,
      lost: burstResult.lost,
      lastConfirmationSeconds: burstResult.lastConfirmationSeconds,
    },
    mailDown: {
      signups: mailDownResult.signups,
      confirmedOnce: mailDownResult.confirmedOnce,
      lost: mailDownResult.lost,
    },
    retention: retentionResult,
  };

  if (json) {
    console.log(JSON.stringify(figures));
  } else {
    say(
      `Netlify waitlist benchmark: the real functions over local Blobs, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}`,
    );
    say("");
    say("Per request, by listed addresses (median of 20; API calls: the most any took)");
    say("  request                  listed  API calls  Blobs ops      ms");
    for (const [name, costs] of [
      ["signup", perSignup],
      ["confirm (page+button)", perConfirm],
      ["leave (page+button)", perLeave],
    ] as const) {
      for (const cost of costs) {
        say(
          `  ${name.padEnd(22)} ${String(cost.n).padStart(7)}  ${String(cost.apiCalls).padStart(9)}  ${String(cost.blobOps).padStart(9)}  ${cost.ms.toFixed(1).padStart(6)}`,
        );
      }
    }
    say("");
    say("The founders' export --netlify, through the API stand-in (500 calls a minute per token)");
    for (const row of founders) say(`  ${String(row.n).padStart(7)} listed: ${row.apiCalls} API calls, ${row.ms} ms`);
    say("");
    for (const [name, result] of [
      [`Burst: ${burstSize} signups over one minute at ${burstResult.signups && "100,000+"} listed`, burstResult],
      [`Mail down for the first 5 minutes: the same burst`, mailDownResult],
    ] as const) {
      say(name);
      say(
        `  acknowledged ${result.acknowledged}, killed at 60 s ${result.killed}, stored once ${result.storedOnce}, confirmed once ${result.confirmedOnce}, lost ${result.lost}`,
      );
      say(
        `  sweeps after the burst ${result.sweeps}, last confirmation ${result.lastConfirmationSeconds} s after the first signup`,
      );
    }
    say("");
    say(
      `31 days later, the ${retentionResult.unconfirmed} never confirmed among ${retentionResult.listed} listed: ${retentionResult.removed} removed by ${retentionResult.sweeps.length} sweep(s)`,
    );
    say(`  per sweep: ${retentionResult.sweeps.map((one) => `${one.blobOps} Blobs ops, ${one.ms} ms`).join("; ")}`);
    say(
      `  a sweep with nothing to remove or send: ${retentionResult.idleSweep.blobOps} Blobs ops, ${retentionResult.idleSweep.ms} ms`,
    );
    say(
      `  API calls by the functions in all of it: ${api.calls.length - founders.reduce((sum, row) => sum + row.apiCalls, 0)}; 429s: ${api.limited}; lines the functions logged: ${logLines}`,
    );
  }

  clock.uninstall();
  await Promise.all([blobs.stop(), smtp.close(), api.close()]);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

/** The file under `root` whose path ends with `suffix`. */
function findFile(root: string, suffix: string): string {
  for (const name of readdirSync(root)) {
    const file = path.join(root, name);
    if (statSync(file).isDirectory()) {
      try {
        return findFile(file, suffix);
      } catch {
        continue;
      }
    }
    if (file.endsWith(suffix)) return file;
  }
  throw new Error(`No ${suffix} under ${root}`);
}

void main();
