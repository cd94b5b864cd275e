// What npm run bench:netlify prints: the figures as a report to read, or with --json as one line of JSON.
import os from "node:os";
import { type viralMinute, burstSize } from "./burst";
import type { StoreKind } from "./deployment";
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
    `Netlify waitlist benchmark: the bundled functions over ${storeKind === "postgres" ? "Netlify Database (a real Postgres)" : "local Blobs"}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}`,
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
