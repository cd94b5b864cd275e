// npm run bench:netlify [-- --json] [-- --store blobs]: what the Netlify
// deployment's waitlist costs per request as the list grows, whether a viral
// minute loses anything, what concurrent requests on one address or one store
// do, how fast a backlog of owed mail clears, and what removing the
// unconfirmed signups 30 days later costs. The functions as Netlify bundles
// them get real web Requests (each with Netlify's 60 s limit; a sweep with its
// 30 s), over Netlify Database as a real Postgres (the default; statements
// counted by pg_stat_statements), or with --store blobs over @netlify/blobs'
// local server and a stand-in of Netlify's API that enforces 500 calls a
// minute per token; a real SMTP server takes the mail. Time is simulated where
// minutes pass (Date only: the bursts' spread, the retry schedule, the sweeps
// every five minutes).
// Prints figures; it is not a test and sets no pass mark.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import FakeTimers from "@sinonjs/fake-timers";
import type { Context } from "@netlify/functions";
import { Pool } from "pg";
import { BlobsStore, hashOf, rowsPerChunk } from "../waitlist/stores/blobs-store";
import { run } from "../cli/run";
import { migrate } from "../waitlist/stores/postgres-migrations";
import { PostgresStore } from "../waitlist/stores/postgres-store";
import type { FullStore } from "../waitlist/stores/store";
import { startLocalBlobs } from "../test/support/blobs";
import { startPostgres } from "../test/support/postgres";
import { startNetlifyApi } from "../test/support/netlify-api";
import { confirmLinks, leaveLinks, startSmtpServer } from "../test/support/smtp";

const sizes = [0, 10_000, 100_000];
const samples = 20;
const burstSize = 1_000;
const functionLimitMs = 60_000;
/** A scheduled function's limit on Netlify. */
const sweepLimitMs = 30_000;
const backlogSize = 5_000;
const backlogMailMs = 100;
const concurrent = 20;
const storeKind = process.argv.includes("--store") ? process.argv[process.argv.indexOf("--store") + 1] : "postgres";
if (storeKind !== "postgres" && storeKind !== "blobs")
  throw new Error(`--store postgres or --store blobs, not ${storeKind}`);
const site = "https://jointandem.app";
const json = process.argv.includes("--json");
const say = (line = "") => {
  if (!json) console.log(line);
};
/** Where the run is, on standard error: minutes pass between the figures. */
const progress = (line: string) => void process.stderr.write(`… ${line}\n`);

type Handler = (request: Request, context: Context) => Promise<Response>;

interface Cost {
  n: number;
  apiCalls: number;
  /** Blobs operations, or SQL statements on Netlify Database. */
  ops: number;
  ms: number;
}

/** Where the functions keep the list in this run, and what the bench needs of it. */
interface Backend {
  store: FullStore;
  /** Operations on the store so far: Blobs operations, or SQL statements. */
  ops(): Promise<number>;
  /** Fills the list to `n` listed addresses, mailed and confirmed long ago, straight into the store's storage. */
  seedTo(n: number): Promise<void>;
  /** The environment of the founders' commands on this store. */
  foundersEnv: NodeJS.ProcessEnv;
  foundersArgs: string[];
  stop(): Promise<void>;
}

const opsName = storeKind === "postgres" ? "statements" : "Blobs ops";
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-netlify-"));
  // The functions log a line per failed send and per sweep; counted here, not printed.
  let logLines = 0;
  console.error = () => void logLines++;
  const start = Date.UTC(2026, 10, 23, 12);
  // Date moves on in real time as well as in the simulation's jumps: the sweep's own 20 s budget reads it.
  const clock = FakeTimers.withGlobal(globalThis).install({ toFake: ["Date"], now: start, shouldAdvanceTime: true });
  const blobs = await startLocalBlobs({ directory: path.join(dir, "blobs") });
  const api = await startNetlifyApi({
    siteId: blobs.siteID,
    token: blobs.token,
    blobsUrl: blobs.url,
    clock: () => Date.now(),
  });
  let mailDownUntil = 0;
  let mailMs = 0;
  const smtp = await startSmtpServer(0, {
    deferRecipient: () => Date.now() < mailDownUntil,
    beforeData: () => new Promise((resolve) => setTimeout(resolve, mailMs)),
  });
  const backend = storeKind === "postgres" ? await postgresBackend(start) : await blobsBackend(blobs, api, start);
  Object.assign(process.env, {
    SMTP_URL: smtp.url,
    WAITLIST_RATE_LIMIT: "1000000",
    WAITLIST_LINK_RATE_LIMIT: "1000000",
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
  const sweepHandler = (await bundled("waitlist-sweep")) as () => Promise<Response>;
  /** One scheduled run, with Netlify's 30 s limit: "killed" past it (in process it runs on; Netlify would stop it). */
  const sweep = async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<"killed">((resolve) => (timer = setTimeout(() => resolve("killed"), sweepLimitMs)));
    const outcome = await Promise.race([sweepHandler(), limit]);
    clearTimeout(timer);
    return outcome;
  };
  say(`Functions: Netlify's bundles (${bundles.length}), on Node ${process.versions.node}, over ${storeKind}.`);
  const { store } = backend;

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

  async function measured<T>(work: () => Promise<T>) {
    const ops = await backend.ops();
    const calls = api.calls.length;
    const began = performance.now();
    const result = await work();
    const ms = performance.now() - began;
    return { result, ops: (await backend.ops()) - ops, apiCalls: api.calls.length - calls, ms };
  }

  const perSignup: Cost[] = [];
  const perLeave: Cost[] = [];
  const perConfirm: Cost[] = [];
  const founders: { n: number; apiCalls: number; ms: number }[] = [];
  for (const n of sizes) {
    progress(`per request at ${n} listed`);
    await backend.seedTo(n);
    const signups: Awaited<ReturnType<typeof measured<unknown>>>[] = [];
    const leaves: Awaited<ReturnType<typeof measured<unknown>>>[] = [];
    const confirms: Awaited<ReturnType<typeof measured<unknown>>>[] = [];
    for (let k = 0; k < samples; k++) {
      const email = `sample${n}-${k}@example.com`;
      signups.push(await measured(() => invoke(signup, post(email), nextIp())));
      const delivery = smtp.deliveries.find((candidate) => candidate.envelope.to.includes(email));
      const confirmLink = confirmLinks(delivery!.mail).text;
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
      ops: median(all.map((one) => one.ops)),
      ms: Math.round(median(all.map((one) => one.ms)) * 10) / 10,
    });
    perSignup.push(cost(signups));
    perLeave.push(cost(leaves));
    perConfirm.push(cost(confirms));
    await sweep();
    // The founders' export at this size: on Blobs through the rate-limited API.
    const exported = await measured(() =>
      run(["export", "--format", "json", ...backend.foundersArgs], backend.foundersEnv),
    );
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
  progress("a burst of 1,000 signups in a minute");
  const burstResult = await burst("burst", 0);
  clock.setSystemTime(Date.now() + 3_600_000);
  progress("the same burst with the mail server down for 5 minutes");
  const mailDownResult = await burst("down", 5);

  // 31 days on, none of the two bursts' signups confirmed: the sweeps every five minutes remove them.
  progress("31 days on: the retention");
  const unconfirmed = 2 * burstSize;
  clock.setSystemTime(Date.now() + 31 * 86_400_000);
  const listedBefore = (await store.all()).length;
  const retention: { ops: number; ms: number }[] = [];
  for (let pass = 0; pass < 20; pass++) {
    const { ops, ms } = await measured(() => sweep());
    retention.push({ ops, ms: Math.round(ms) });
    clock.setSystemTime(Date.now() + 300_000);
    if ((await store.all()).length === listedBefore - unconfirmed) break;
  }
  const idle = await measured(() => sweep());
  const retentionResult = {
    unconfirmed,
    listed: listedBefore,
    removed: listedBefore - (await store.all()).length,
    sweeps: retention,
    idleSweep: { ops: idle.ops, ms: Math.round(idle.ms) },
  };

  progress("concurrent signups of one address, and concurrent leaves");
  // 20 signups of one address at the same moment, each from its own IP: stored once, mailed once?
  const same = "same.address@example.com";
  const sameReplies = await Promise.all(Array.from({ length: concurrent }, () => invoke(signup, post(same), nextIp())));
  const concurrentSignups = {
    signups: concurrent,
    answered200: sameReplies.filter((reply) => reply !== "killed" && reply.status === 200).length,
    stored: (await store.all()).filter((row) => row.email === same).length,
    mailed: smtp.deliveries.filter((delivery) => delivery.envelope.to.includes(same)).length,
  };

  // 20 one-click leaves at the same moment, of 20 addresses stored side by side.
  const leavers = Array.from({ length: concurrent }, (_, i) => `leaver${i}@example.com`);
  for (const email of leavers) await invoke(signup, post(email), nextIp());
  const leaveReplies = await Promise.all(
    leavers.map((email) => {
      const delivery = smtp.deliveries.find((candidate) => candidate.envelope.to.includes(email))!;
      const link = leaveLinks(delivery.mail).text;
      return invoke(
        leave,
        new Request(link, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "List-Unsubscribe=One-Click",
        }),
        nextIp(),
      );
    }),
  );
  const stillListed = new Set((await store.all()).map((row) => row.email));
  const concurrentLeaves = {
    leaves: concurrent,
    errors: leaveReplies.filter((reply) => reply === "killed" || reply.status !== 200).length,
    stillListed: leavers.filter((email) => stillListed.has(email)).length,
  };

  // A backlog: 5,000 confirmations owed (a mail outage, an import asked to confirm), a mail server taking 100 ms a
  // message, the sweep every five minutes, each run stopped at 30 s.
  progress(`a backlog of ${backlogSize} owed`);
  const backlogStart = Date.now();
  await Promise.all(
    Array.from({ length: 10 }, async (_, lane) => {
      for (let i = lane; i < backlogSize; i += 10) {
        const email = `owed${i}@example.com`;
        await store.add({ email, emailKey: email, source: "netlify", at: new Date(backlogStart - 3_600_000) });
      }
    }),
  );
  mailMs = backlogMailMs;
  const owedBacklog = async () =>
    (await store.pendingConfirmations()).filter((one) => one.email.startsWith("owed")).length;
  let backlogSweeps = 0;
  const sentPerSweep: number[] = [];
  let backlogKilled = 0;
  let clearedAt = backlogStart;
  while ((await owedBacklog()) > 0 && backlogSweeps < 60) {
    clock.setSystemTime(backlogStart + backlogSweeps * 300_000);
    const began = performance.now();
    const before = smtp.deliveries.length;
    if ((await sweep()) === "killed") backlogKilled++;
    sentPerSweep.push(smtp.deliveries.length - before);
    backlogSweeps++;
    clearedAt = backlogStart + (backlogSweeps - 1) * 300_000 + (performance.now() - began);
  }
  mailMs = 0;
  const backlogMailed = new Set(
    smtp.deliveries.flatMap((delivery) => delivery.envelope.to.filter((to) => to.startsWith("owed"))),
  ).size;
  const backlog = {
    owed: backlogSize,
    mailMs: backlogMailMs,
    mailed: backlogMailed,
    stillOwed: await owedBacklog(),
    clearedSeconds: Math.round((clearedAt - backlogStart) / 1000),
    sweeps: backlogSweeps,
    sentPerSweep,
    killed: backlogKilled,
  };

  const figures = {
    store: storeKind,
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
    concurrentSignups,
    concurrentLeaves,
    backlog,
  };

  if (json) {
    console.log(JSON.stringify(figures));
  } else {
    say(
      `Netlify waitlist benchmark: the bundled functions over ${storeKind === "postgres" ? "Netlify Database (a real Postgres)" : "local Blobs"}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}`,
    );
    say("");
    say("Per request, by listed addresses (median of 20; API calls: the most any took)");
    say(`  request                  listed  API calls  ${opsName.padStart(10)}      ms`);
    for (const [name, costs] of [
      ["signup", perSignup],
      ["confirm (page+button)", perConfirm],
      ["leave (page+button)", perLeave],
    ] as const) {
      for (const cost of costs) {
        say(
          `  ${name.padEnd(22)} ${String(cost.n).padStart(7)}  ${String(cost.apiCalls).padStart(9)}  ${String(cost.ops).padStart(9)}  ${cost.ms.toFixed(1).padStart(6)}`,
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
    say(`  per sweep: ${retentionResult.sweeps.map((one) => `${one.ops} ${opsName}, ${one.ms} ms`).join("; ")}`);
    say(
      `  a sweep with nothing to remove or send: ${retentionResult.idleSweep.ops} ${opsName}, ${retentionResult.idleSweep.ms} ms`,
    );
    say("");
    say(
      `${concurrent} signups of one address at once: ${concurrentSignups.answered200} answered 200, stored ${concurrentSignups.stored}, mailed ${concurrentSignups.mailed}`,
    );
    say(
      `${concurrent} one-click leaves at once: ${concurrentLeaves.errors} errors, ${concurrentLeaves.stillListed} still listed`,
    );
    say(
      `A backlog of ${backlog.owed} owed at ${backlog.mailMs} ms a mail: ${backlog.mailed} mailed, ${backlog.stillOwed} still owed, cleared ${backlog.clearedSeconds} s after the first sweep, by ${backlog.sweeps} sweep(s) (${backlog.killed} stopped at 30 s), sending ${backlog.sentPerSweep.join(", ")}`,
    );
    say(
      `  API calls by the functions in all of it: ${api.calls.length - founders.reduce((sum, row) => sum + row.apiCalls, 0)}; 429s: ${api.limited}; lines the functions logged: ${logLines}`,
    );
  }

  clock.uninstall();
  await backend.stop();
  await Promise.all([blobs.stop(), smtp.close(), api.close()]);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

/** Netlify Database: a real Postgres with pg_stat_statements, the schema as Netlify's deploy leaves it. */
async function postgresBackend(start: number): Promise<Backend> {
  const postgres = await startPostgres({
    settings: ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"],
  });
  const url = await postgres.createDatabase();
  const pool = new Pool({ connectionString: url });
  // The server goes at the end of the run, and with it every connection still open: nothing to report then.
  pool.on("error", () => {});
  await migrate(pool);
  await pool.query("CREATE EXTENSION pg_stat_statements");
  process.env.NETLIFY_DB_URL = url;
  let seeded = 0;
  return {
    store: new PostgresStore(pool, { endPool: false }),
    async ops() {
      const { rows } = await pool.query<{ calls: string | null }>(
        `SELECT sum(calls) AS calls FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%signups LIMIT 0%'`,
      );
      return Number(rows[0]?.calls ?? 0);
    },
    async seedTo(n) {
      if (n <= seeded) return;
      await pool.query(
        `INSERT INTO signups (email, email_key, created_at, source, confirmation_sent_at, opt_in_since, confirmed_at)
         SELECT 'listed' || i || '@example.com', 'listed' || i || '@example.com', at, 'netlify', at, at, at
         FROM generate_series($1::int, $2::int - 1) AS i,
              LATERAL (SELECT to_timestamp(($3::bigint - 2592000000 + i::bigint * 1000) / 1000.0) AS at) AS t`,
        [seeded, n, start],
      );
      await pool.query("ANALYZE signups");
      seeded = n;
    },
    foundersEnv: { DATABASE_URL: url },
    foundersArgs: [],
    async stop() {
      await pool.end();
      await postgres.stop();
    },
  };
}

/** The Blobs store of a site without Netlify Database, reached by the founders through the API stand-in. */
async function blobsBackend(
  blobs: Awaited<ReturnType<typeof startLocalBlobs>>,
  api: Awaited<ReturnType<typeof startNetlifyApi>>,
  start: number,
): Promise<Backend> {
  process.env.NETLIFY_BLOBS_CONTEXT = blobs.context();
  const store = new BlobsStore(blobs.store());
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

  return {
    store,
    async ops() {
      await blobs.settled();
      return blobs.operations.length;
    },
    seedTo: async (n) => seedTo(n),
    foundersEnv: { NETLIFY_API_TOKEN: blobs.token, NETLIFY_SITE_ID: blobs.siteID, NETLIFY_API_URL: api.url },
    foundersArgs: ["--netlify"],
    stop: async () => {},
  };
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
