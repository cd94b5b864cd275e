// What npm run bench:netlify prints: the figures as a report to read, or with --json as one line of JSON.
import os from "node:os";
import { type viralMinute, burstSize } from "./burst";
import { rates, rateSources, ratesRead } from "./credits";
import { type StoreKind, defaultStore } from "./deployment";
import { type Months, goals, method } from "./months";
import type { perRequest } from "./per-request";
import { type races, concurrent } from "./races";
import type { backlog, retention } from "./sweeps";

export interface Results {
  store: StoreKind;
  perRequest: Awaited<ReturnType<typeof perRequest>>;
  viralMinute: Awaited<ReturnType<typeof viralMinute>>;
  retention: Awaited<ReturnType<typeof retention>>;
  races: Awaited<ReturnType<typeof races>>;
  backlog: Awaited<ReturnType<typeof backlog>>;
}

/** The whole run's API calls (the founders' exports among them), 429s, and lines the functions logged. */
export interface Totals {
  apiCalls: number;
  limited: number;
  logLines: number;
}

/** The figures of --json. */
export function figures({ store, perRequest, viralMinute, retention, races, backlog }: Results) {
  const { burst, mailDown } = viralMinute;
  return {
    store,
    perSignup: perRequest.perSignup,
    perConfirm: perRequest.perConfirm,
    perLeave: perRequest.perLeave,
    burst: {
      signups: burst.signups,
      atN: 100_000,
      storedOnce: burst.storedOnce,
      confirmedOnce: burst.confirmedOnce,
      lost: burst.lost,
      lastConfirmationSeconds: burst.lastConfirmationSeconds,
    },
    mailDown: {
      signups: mailDown.signups,
      confirmedOnce: mailDown.confirmedOnce,
      lost: mailDown.lost,
    },
    retention,
    concurrentSignups: races.concurrentSignups,
    concurrentLeaves: races.concurrentLeaves,
    backlog,
  };
}

/** The machine, for the figures' provenance. */
export const machine = () => `${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}`;

/** The credits of --json: each store's months, and whether the default store meets its goals. */
export function creditsFigures(months: Partial<Record<StoreKind, Months>>, visit: { requests: number; bytes: number }) {
  const ours = months[defaultStore];
  return {
    default: defaultStore,
    ratesRead,
    rates,
    rateSources,
    visit: { requests: visit.requests, bytes: visit.bytes },
    method,
    goals: ours && {
      store: defaultStore,
      idleMonth: {
        credits: ours.idleMonth.total,
        atMost: goals.idleMonth,
        met: ours.idleMonth.total <= goals.idleMonth,
      },
      viralMonth: {
        credits: ours.viralMonth.total,
        atMost: goals.viralMonth,
        met: ours.viralMonth.total <= goals.viralMonth,
      },
      lost: ours.lost,
    },
    ...months,
  };
}

const storeNames: Record<StoreKind, string> = { blobs: "Netlify Blobs", postgres: "Netlify Database" };
const figure = (credits: number) => credits.toFixed(2).padStart(8);
const count = (n: number) => n.toLocaleString("en").padStart(7);

export function printCredits(credits: ReturnType<typeof creditsFigures>) {
  console.log(
    `Credits a month (Netlify's rates read ${credits.ratesRead}; a visit to / is ${credits.visit.requests} requests and ${(credits.visit.bytes / 1000).toFixed(1)} KB, headers included, as Chromium loads public/)`,
  );
  for (const store of ["blobs", "postgres"] as const) {
    const months = credits[store];
    if (!months) continue;
    console.log(`  ${storeNames[store]}${store === credits.default ? " (the default)" : ""}, lost ${months.lost}`);
    console.log(
      "    month        total database  compute requests bandwidth deploys | signups  visits   mails  sweeps",
    );
    for (const [name, month] of [
      ["idle", months.idleMonth],
      ["trickle", months.trickleMonth],
      ["viral", months.viralMonth],
    ] as const) {
      console.log(
        `    ${name.padEnd(8)}${figure(month.total)} ${figure(month.database)} ${figure(month.compute)} ${figure(month.requests)}  ${figure(month.bandwidth)}${figure(month.deploys)} | ${count(month.signups)} ${count(month.visits)} ${count(month.mails)} ${count(month.sweeps)}`,
      );
    }
    for (const [name, month] of [
      ["idle", months.idleMonth],
      ["trickle", months.trickleMonth],
      ["viral", months.viralMonth],
    ] as const) {
      const { meters } = month;
      const ms = Object.entries(meters.medianMs)
        .filter(([, value]) => value !== null)
        .map(([kind, value]) => `${kind} ${value} ms`)
        .join(", ");
      console.log(
        `    ${name}: ${meters.gbHours} GB-hours (${meters.functionInvocations.toLocaleString("en")} invocations; median ${ms}), ${meters.webRequests.toLocaleString("en")} web requests (${meters.visitRequests.toLocaleString("en")} of visits, ${meters.scheduledInvocations.toLocaleString("en")} scheduled), ${meters.bandwidthGb} GB, database awake ${meters.databaseAwakeHours} h in ${meters.databaseWakes} wake(s) (${meters.databaseStatements.toLocaleString("en")} statements), ${meters.blobsOperations.toLocaleString("en")} Blobs operations`,
      );
    }
  }
  if (credits.goals) {
    const { idleMonth, viralMonth, lost } = credits.goals;
    const met = (goal: { met: boolean }) => (goal.met ? "met" : "NOT met");
    console.log(
      `  Goals of the default store (${storeNames[credits.goals.store]}): an idle month at most ${idleMonth.atMost} credits: ${idleMonth.credits}, ${met(idleMonth)}; a viral month at most ${viralMonth.atMost}: ${viralMonth.credits}, ${met(viralMonth)}; ${lost} lost`,
    );
  }
  console.log(`  How: idle month: ${method.idleMonth}.`);
  console.log(`       trickle month: ${method.trickleMonth}.`);
  console.log(`       viral month: ${method.viralMonth}.`);
  console.log(
    `  Scheduled runs are counted as web requests (Netlify's pages do not say whether it counts them; ${rates.requestsPer10k} credits per 10,000).`,
  );
  for (const source of Object.values(rateSources)) console.log(`  Rate: ${source}`);
}

/** Mail sent per sweep, the run of sweeps that sent nothing at the end said in words. */
function sent(perSweep: readonly number[]) {
  let sending = perSweep.length;
  while (sending > 0 && perSweep[sending - 1] === 0) sending--;
  const idle = perSweep.length - sending;
  return `${perSweep.slice(0, sending).join(", ") || "none"}${idle > 0 ? `, then nothing in ${idle} more` : ""}`;
}

export function printReport(results: Results, totals: Totals) {
  const storeKind = results.store;
  const opsName = storeKind === "postgres" ? "statements" : "Blobs ops";
  const { perSignup, perConfirm, perLeave, founders } = results.perRequest;
  const { burst: burstResult, mailDown: mailDownResult } = results.viralMinute;
  const { retention: retentionResult, backlog } = results;
  const { concurrentSignups, concurrentLeaves } = results.races;
  console.log(
    `Netlify waitlist benchmark: the bundled functions over ${storeKind === "postgres" ? "Netlify Database (a real Postgres)" : "local Blobs"}, ${machine()}`,
  );
  console.log("");
  console.log("Per request, by listed addresses (median of 20; API calls: the most any took)");
  console.log(`  request                  listed  API calls  ${opsName.padStart(10)}      ms`);
  for (const [name, costs] of [
    ["signup", perSignup],
    ["confirm (page+button)", perConfirm],
    ["leave (page+button)", perLeave],
  ] as const) {
    for (const cost of costs) {
      console.log(
        `  ${name.padEnd(22)} ${String(cost.n).padStart(7)}  ${String(cost.apiCalls).padStart(9)}  ${String(cost.ops).padStart(9)}  ${cost.ms.toFixed(1).padStart(6)}`,
      );
    }
  }
  console.log("");
  console.log("The founders' export --netlify, through the API stand-in (500 calls a minute per token)");
  for (const row of founders)
    console.log(`  ${String(row.n).padStart(7)} listed: ${row.apiCalls} API calls, ${row.ms} ms`);
  console.log("");
  for (const [name, result] of [
    [`Burst: ${burstSize} signups over one minute at ${burstResult.signups && "100,000+"} listed`, burstResult],
    [`Mail down for the first 5 minutes: the same burst`, mailDownResult],
  ] as const) {
    console.log(name);
    console.log(
      `  acknowledged ${result.acknowledged}, killed at 60 s ${result.killed}, stored once ${result.storedOnce}, confirmed once ${result.confirmedOnce}, lost ${result.lost}`,
    );
    console.log(
      `  sweeps after the burst ${result.sweeps}, last confirmation ${result.lastConfirmationSeconds} s after the first signup`,
    );
  }
  console.log("");
  console.log(
    `31 days later, the ${retentionResult.unconfirmed} never confirmed among ${retentionResult.listed} listed: ${retentionResult.removed} removed by ${retentionResult.passes.length} daily pass(es)`,
  );
  console.log(`  per pass: ${retentionResult.passes.map((one) => `${one.ops} ${opsName}, ${one.ms} ms`).join("; ")}`);
  console.log(
    `  a sweep with nothing to send: ${retentionResult.idleSweep.ops} ${opsName}, ${retentionResult.idleSweep.ms} ms; a daily pass with nothing to remove: ${retentionResult.idleDaily.ops} ${opsName}, ${retentionResult.idleDaily.ms} ms`,
  );
  console.log("");
  console.log(
    `${concurrent} signups of one address at once: ${concurrentSignups.answered200} answered 200, stored ${concurrentSignups.stored}, mailed ${concurrentSignups.mailed}`,
  );
  console.log(
    `${concurrent} one-click leaves at once: ${concurrentLeaves.errors} errors, ${concurrentLeaves.stillListed} still listed`,
  );
  console.log(
    `A backlog of ${backlog.owed} owed at ${backlog.mailMs} ms a mail: ${backlog.mailed} mailed, ${backlog.stillOwed} still owed, ${backlog.clearedSeconds === null ? "not cleared" : `cleared ${backlog.clearedSeconds} s after the first sweep`} by ${backlog.sweeps} sweep(s) (${backlog.killed} stopped at 30 s), sending ${sent(backlog.sentPerSweep)}`,
  );
  console.log(
    `  API calls by the functions in all of it: ${totals.apiCalls - founders.reduce((sum, row) => sum + row.apiCalls, 0)}; 429s: ${totals.limited}; lines the functions logged: ${totals.logLines}`,
  );
}
