// What npm run bench:netlify prints: the figures as a report to read, or with --json as one line of JSON.
import os from "node:os";
import type { viralMinute } from "./burst";
import type { Check } from "./checks";
import { rates, rateSources, ratesRead, visitCredits } from "./credits";
import type { after100kDay, dailyPassesAfter } from "./daily";
import type { ProviderReport } from "./mail";
import { type idleMonthOver, type Months, goals, method } from "./months";
import type { Outage } from "./outage";
import type { perRequest } from "./per-request";
import { type races, concurrent } from "./races";
import type { SmallPlan } from "./small-plan";
import type { retention } from "./sweeps";

export interface Results {
  perRequest: Awaited<ReturnType<typeof perRequest>>;
  viralMinute: Awaited<ReturnType<typeof viralMinute>>;
  retention: Awaited<ReturnType<typeof retention>>;
  races: Awaited<ReturnType<typeof races>>;
}

/** The run's API calls (the founders' exports among them), 429s, lines the functions logged, Blobs and mail counts. */
export interface Totals {
  apiCalls: number;
  limited: number;
  logLines: number;
  blobs: { operations: number; answered503: number; slow: number; backoffs: number };
  mails: number;
}

/** The figures of --json. */
export function figures({ perRequest, viralMinute, retention, races }: Results) {
  const { burst, mailDown } = viralMinute;
  return {
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
      instances: burst.instances,
      coldStarts: burst.coldStarts,
    },
    mailDown: {
      signups: mailDown.signups,
      confirmedOnce: mailDown.confirmedOnce,
      lost: mailDown.lost,
      instances: mailDown.instances,
    },
    retention,
    concurrentSignups: races.concurrentSignups,
    concurrentLeaves: races.concurrentLeaves,
  };
}

/** The machine, for the figures' provenance. */
export const machine = () => `${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}`;

/**
 * The credits of --json: the months, what a visit and a signup cost, and whether the goals are met, on the count
 * Netlify's pages support (scheduled runs are no web requests; the other count beside it).
 */
export function creditsFigures(
  months: Months,
  idleMonthAt100k: Awaited<ReturnType<typeof idleMonthOver>>["month"],
  visit: { requests: number; bytes: number },
  visitsPerSignup: number,
) {
  const { idleMonth, viralMonth, lost } = months;
  const perVisit = visitCredits(visit);
  // A signup's own cost, its visits aside: what the viral month costs over the idle month's scheduled runs, less
  // its deploys and its visits, per signup (its confirmation and mail included).
  const signupsOwn =
    (viralMonth.total - idleMonth.total - viralMonth.deploys - viralMonth.visits * perVisit) / viralMonth.signups;
  const goal = (credits: number, atMost: number) => ({ credits, atMost, met: credits <= atMost });
  return {
    ratesRead,
    rates,
    rateSources,
    visit: { requests: visit.requests, bytes: visit.bytes },
    visitsPerSignup,
    perVisit: Math.round(perVisit * 100_000) / 100_000,
    perSignupWithoutVisits: Math.round(signupsOwn * 100_000) / 100_000,
    method,
    scheduledRunsAsWebRequests:
      "not counted in the totals and goals: Netlify's pages bill web requests to a site, and none says a scheduled run is one (docs.netlify.com/build/functions/scheduled-functions); each month gives both counts under scheduledAsRequests",
    goals: {
      idleMonth: goal(idleMonth.total, goals.idleMonth),
      viralMonth: goal(viralMonth.total, goals.viralMonth),
      viralMonthScheduledCounted: goal(viralMonth.scheduledAsRequests.counted.total, goals.viralMonth),
      idleMonthAt100k: goal(idleMonthAt100k.total, goals.idleMonth),
      lost,
    },
    idleMonth,
    trickleMonth: months.trickleMonth,
    viralMonth,
    idleMonthAt100k,
    lost,
  };
}

const figure = (credits: number) => credits.toFixed(2).padStart(8);
const count = (n: number) => n.toLocaleString("en").padStart(7);

export function printCredits(credits: ReturnType<typeof creditsFigures>) {
  console.log(
    `Credits a month (Netlify's rates read ${credits.ratesRead}; a visit to / is ${credits.visit.requests} requests and ${(credits.visit.bytes / 1000).toFixed(1)} KB, headers included, as Chromium loads public/; ${credits.visitsPerSignup} visits a signup), lost ${credits.lost}`,
  );
  console.log(
    "    month        total  compute requests bandwidth deploys | with scheduled runs as requests | signups  visits   mails  sweeps",
  );
  const months = [
    ["idle", credits.idleMonth],
    ["trickle", credits.trickleMonth],
    ["viral", credits.viralMonth],
    ["idle100k", credits.idleMonthAt100k],
  ] as const;
  for (const [name, month] of months) {
    console.log(
      `    ${name.padEnd(8)}${figure(month.total)} ${figure(month.compute)} ${figure(month.requests)}  ${figure(month.bandwidth)}${figure(month.deploys)} | ${figure(month.scheduledAsRequests.counted.total)}                        | ${count(month.signups)} ${count(month.visits)} ${count(month.mails)} ${count(month.sweeps)}`,
    );
  }
  for (const [name, month] of months) {
    const { meters } = month;
    const ms = Object.entries(meters.medianMs)
      .filter(([, value]) => value !== null)
      .map(([kind, value]) => `${kind} ${value} ms`)
      .join(", ");
    console.log(
      `    ${name}: ${meters.gbHours} GB-hours (${meters.functionInvocations.toLocaleString("en")} invocations, ${meters.killed} killed; median ${ms}), ${meters.webRequests.toLocaleString("en")} web requests (${meters.visitRequests.toLocaleString("en")} of visits; ${meters.scheduledInvocations.toLocaleString("en")} scheduled runs besides), ${meters.bandwidthGb} GB, ${meters.blobsOperations.toLocaleString("en")} Blobs operations`,
    );
  }
  const { idleMonth, viralMonth, viralMonthScheduledCounted, idleMonthAt100k, lost } = credits.goals;
  const met = (goal: { met: boolean }) => (goal.met ? "met" : "NOT met");
  console.log(
    `  Goals: an idle month at most ${idleMonth.atMost} credits: ${idleMonth.credits}, ${met(idleMonth)}; a viral month at most ${viralMonth.atMost}: ${viralMonth.credits}, ${met(viralMonth)} (${viralMonthScheduledCounted.credits} with scheduled runs as requests); an idle month over 100,000 listed: ${idleMonthAt100k.credits}, ${met(idleMonthAt100k)}; ${lost} lost`,
  );
  console.log(
    `  A visit to / costs ${credits.perVisit} credits; a signup, its visits aside, ${credits.perSignupWithoutVisits}: a month is about the idle month + deploys + signups × (${credits.perSignupWithoutVisits} + visits a signup × ${credits.perVisit}).`,
  );
  console.log(`  How: idle month: ${method.idleMonth}.`);
  console.log(`       trickle month: ${method.trickleMonth}.`);
  console.log(`       viral month: ${method.viralMonth}.`);
  console.log(`       idle month over 100,000: ${method.idleMonthAt100k}.`);
  console.log(`  Scheduled runs as web requests: ${credits.scheduledRunsAsWebRequests}.`);
  for (const source of Object.values(rateSources)) console.log(`  Rate: ${source}`);
}

type Daily = Awaited<ReturnType<typeof dailyPassesAfter>>;

export function printReport(
  results: Results,
  totals: Totals,
  {
    daily,
    outage,
    scale,
  }: {
    daily: { afterViralMonth: Daily; after100kDay: Awaited<ReturnType<typeof after100kDay>> };
    outage: Outage;
    scale: number;
  },
) {
  const opsName = "Blobs ops";
  const { perSignup, perConfirm, perLeave, founders } = results.perRequest;
  const { burst: burstResult, mailDown: mailDownResult } = results.viralMinute;
  const { retention: retentionResult } = results;
  const { concurrentSignups, concurrentLeaves } = results.races;
  console.log(
    `Netlify waitlist benchmark: the bundled functions over local Blobs at Netlify's speed (simulated), ${machine()}${scale === 1 ? "" : `, at ${scale} of the signups`}`,
  );
  console.log(
    `  ${totals.blobs.operations.toLocaleString("en")} Blobs operations outside the months (${totals.blobs.slow} slow, ${totals.blobs.answered503} answered 503, ${totals.blobs.backoffs} backoffs), ${totals.mails.toLocaleString("en")} messages`,
  );
  console.log("");
  console.log(
    "Per request, by listed addresses (median of 20, ms on the simulated clock; API calls: the most any took)",
  );
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
  printBursts(
    `${burstResult.signups} signups over one minute after the per-request sizes`,
    burstResult,
    mailDownResult,
  );
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
  for (const [name, result] of [
    ["after the viral month", daily.afterViralMonth],
    [`after a day of ${daily.after100kDay.signups.toLocaleString("en")} signups`, daily.after100kDay],
  ] as const) {
    console.log(
      `Daily passes ${name}: ${result.passes} pass(es), the longest ${result.longestMs} ms, ${result.killed} killed at 30 s (${result.sweepsKilled} sweeps killed); the oldest never confirmed still listed ${result.retentionLagDays} day(s) past its 30 days`,
    );
  }
  console.log(
    `Mail down from noon to 18:00 on a day of ${outage.signups.toLocaleString("en")} signups: ${outage.owed} owed at 18:00, ${outage.clearedMinutes === null ? `${outage.stillOwed} still owed a day later` : `all mailed ${outage.clearedMinutes} minutes after`}; ${outage.sweeps} sweeps, ${outage.killed} killed at 30 s; ${outage.mailedTwice} mailed twice`,
  );
  console.log(
    `  API calls by the functions in all of it: ${totals.apiCalls - founders.reduce((sum, row) => sum + row.apiCalls, 0)}; 429s: ${totals.limited}; lines the functions logged: ${totals.logLines}`,
  );
}

type Burst = Results["viralMinute"]["burst"];

/** The viral minute's two bursts: what became of their signups, and the instances they ran on. */
function printBursts(what: string, burst: Burst, mailDown: Burst) {
  for (const [name, result] of [
    [`Burst: ${what}`, burst],
    [`Mail down for the first 5 minutes: the same burst`, mailDown],
  ] as const) {
    console.log(name);
    console.log(
      `  acknowledged ${result.acknowledged}, killed at 60 s ${result.killed}, stored once ${result.storedOnce}, confirmed once ${result.confirmedOnce}, lost ${result.lost}`,
    );
    console.log(
      `  on ${result.instances} instances of the signup function (${result.coldStarts} started cold for it); sweeps after the burst ${result.sweeps}, last confirmation ${result.lastConfirmationSeconds} s after the first signup`,
    );
  }
}

/** The provider's connections and what it took: of the bursts and the months, or of the burst alone. */
function providerLine(provider: ProviderReport, where: string) {
  const count = (n: number) => n.toLocaleString("en");
  return `The mail provider ${where} (${provider.name}: ${provider.ratePerSecond} a second, ${provider.connections} connections, ${count(provider.dailyLimit ?? 0)} a day): ${count(provider.sent)} sent, ${provider.throttled} throttle replies, ${provider.dropped} dropped, ${provider.refusedForQuota} refused for its quota; at most ${provider.maxConnections} connections at once, ${provider.refusedConnections} refused; ${provider.bounced} bounced for good and ${provider.complained} complaints posted to the site (${provider.eventsFailed} not taken); ${provider.mailedAfterSuppression} messages taken for an address after the site took its bounce or complaint, ${provider.mailedTwice} addresses sent one message twice, ${provider.refusedForGood} signups refused for good by its replies`;
}

const printChecks = (checks: Record<string, Check>) => {
  console.log("Checks");
  for (const check of Object.values(checks)) {
    console.log(`  ${check.met ? "met    " : "NOT met"}  ${check.what}: ${check.measured}`);
  }
};

/** --only burst: the viral minute, its provider, and its checks. */
export function printBurst(burst: Burst, mailDown: Burst, provider: ProviderReport, checks: Record<string, Check>) {
  console.log(`Netlify waitlist benchmark, the viral minute alone: ${machine()}`);
  printBursts(`${burst.signups} signups over one minute`, burst, mailDown);
  console.log(providerLine(provider, "in the two bursts"));
  console.log("");
  printChecks(checks);
}

/** The provider's figures across the bursts and the months, the founders' commands, the small plan, and a line per check. */
export function printMail({
  provider,
  founders,
  smallPlan,
  checks,
}: {
  provider: ProviderReport;
  founders: Months["founders"];
  smallPlan: SmallPlan;
  checks: Record<string, Check>;
}) {
  const count = (n: number) => n.toLocaleString("en");
  console.log(providerLine(provider, "in the bursts and the months"));
  for (const run of founders) {
    console.log(`  npm run waitlist -- ${run.command} --netlify: ${run.minutes} minutes; ${run.said.join(" ")}`);
  }
  const { provider: small, digest } = smallPlan;
  console.log(
    `A small plan (${small.name}: ${small.ratePerSecond} a second, ${small.dailyLimit} a day), ${count(smallPlan.signups)} signups in a day: ${smallPlan.sentOnTheDay} sent that day, ${smallPlan.refusedOnTheDay} refused for the quota (${smallPlan.throttledOnTheDay} throttle replies); the next day ${smallPlan.sentTheNextDay} sent, ${smallPlan.refusedTheNextDay} refused (${smallPlan.throttledTheNextDay} throttle replies)`,
  );
  console.log(`  The founders' digest the next midnight: ${digest.subject ?? "none"}`);
  for (const line of digest.lines) console.log(`    ${line}`);
  console.log("");
  printChecks(checks);
}
