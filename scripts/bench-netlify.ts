// npm run bench:netlify [-- --json] [-- --scale 0.1] [-- --visits-per-signup 5] [-- --only burst]: what the Netlify
// deployment's waitlist costs at Netlify's speed: per request as the list grows, whether a viral minute loses
// anything, what concurrent requests on one address do, what removing the unconfirmed signups 30 days later costs,
// whether the daily pass keeps within its 30 s after a viral month and after a day of 100,000 signups, how fast a
// mail outage on the viral day clears, what a month costs in Netlify credits, idle, with a trickle of signups, with a
// viral day, and idle over 100,000 listed, and how a small plan's daily limit (Resend's free 100) holds a day of 1,000
// signups. The functions as Netlify bundles them get real web Requests (each with Netlify's 60 s limit; a scheduled
// run with its 30 s), each call on an instance of its own, started cold when every other is busy, as Lambda scales
// out (instances.ts), over @netlify/blobs' local server with a stand-in of Netlify's API that enforces 500 calls a
// minute per token; a mail provider as strict as SES in production takes the mail (14 a second, 10 connections each
// charged its TLS handshake and AUTH, 50,000 a day, throttle replies past them, 2 % bounces and 0.1 % complaints
// posted back to the site: mail.ts), and the drains the functions ask for and the provider's posts reach the bundled
// functions (site-fetch.ts). Every Blobs operation takes Netlify's time (40 ms, 1 in 100 400 ms, 1 in 500 answered
// 503 and retried), and every message a mail provider's (0.5 s, 1 in 50 3 s; a new connection 0.2 s more), on a
// simulated clock (Date only) where minutes and months pass: latency.ts. The credits price each signup's visits to /
// from the built site: run `npm run build:netlify` first.
// --scale multiplies every count of signups and listed addresses (not the days, nor the scheduled runs): 0.1 runs the
// whole bench in a tenth of the signups, to see it work end to end. --only burst runs the viral minute alone (its
// burst and the same with the mail down, on an empty list, in minutes rather than the hours of the whole), with its
// provider's figures and its checks.
// Prints figures, and checks what the site's mail and price must show (checks.ts): a line per check, "checks" in the
// JSON; it is not a test, and a check not met fails nothing.
// Its parts, in scripts/bench-netlify/: the functions, their instances, servers and clock it runs on (deployment.ts,
// instances.ts, latency.ts), the store (backends.ts), the mail provider and the functions' own requests (mail.ts,
// site-fetch.ts), each measurement (per-request.ts, burst.ts, sweeps.ts, races.ts, daily.ts, outage.ts,
// small-plan.ts), the months (months.ts, month-traffic.ts, month-run.ts, visit.ts, founders.ts) and their credits (credits.ts), the
// checks (checks.ts), and what it prints (report.ts).
// The day after 100,000 signups, the outage, the idle month over 100,000 and the small plan run in a second process
// beside the rest, on the machine's other core: each part has its own deployment and clock, so they share nothing
// but the machine, and the run takes the longer of the two, not their sum.
import { execFile } from "node:child_process";
import { performance } from "node:perf_hooks";
import { viralMinute } from "./bench-netlify/burst";
import { benchChecks, burstChecks } from "./bench-netlify/checks";
import { after100kDay } from "./bench-netlify/daily";
import { progress, startDeployment } from "./bench-netlify/deployment";
import { netlifySpeed, stalls } from "./bench-netlify/latency";
import { sumProviderFigures } from "./bench-netlify/mail";
import { defaultVisitsPerSignup, idleMonthOver, months } from "./bench-netlify/months";
import { outage } from "./bench-netlify/outage";
import { perRequest } from "./bench-netlify/per-request";
import { races } from "./bench-netlify/races";
import {
  creditsFigures,
  figures,
  machine,
  printCredits,
  printBurst,
  printMail,
  printReport,
  type Results,
} from "./bench-netlify/report";
import { smallPlan } from "./bench-netlify/small-plan";
import { retention } from "./bench-netlify/sweeps";
import { measureVisit } from "./bench-netlify/visit";

/** The number after `--name`, or `fallback`. */
function option(name: string, fallback: number) {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name} takes a positive number, not ${process.argv[at + 1]}`);
  return value;
}
const json = process.argv.includes("--json");
/** Set in the second process: it runs the parts aside and prints their figures as JSON. */
const aside = process.argv.includes("--aside");
const scale = option("scale", 1);
const visitsPerSignup = option("visits-per-signup", defaultVisitsPerSignup);
/** The one part to run (--only burst), or every part. */
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
if (only !== undefined && only !== "burst") throw new Error(`--only takes burst, not ${only}`);

async function measure() {
  const bench = await startDeployment();
  if (!json) console.log(`Functions: Netlify's bundles (${bench.functions}), on Node ${process.versions.node}.`);
  const results: Results = {
    perRequest: await perRequest(bench, { scale }),
    viralMinute: await viralMinute(bench, { scale }),
    // None of the two bursts' signups confirmed.
    retention: await retention(bench, 2 * Math.round(1_000 * scale)),
    races: await races(bench),
  };
  const totals = {
    apiCalls: bench.api.calls.length,
    limited: bench.api.limited,
    logLines: bench.logLines(),
    blobs: { ...bench.blobsCounts },
    mails: bench.mail.messages,
  };
  const provider = await bench.providerReport();
  await bench.stop();
  return { results, totals, provider };
}

/** The viral minute alone (--only burst): its figures, its provider's and its checks. */
async function burstOnly() {
  const bench = await startDeployment();
  const { burst, mailDown } = await viralMinute(bench, { scale });
  const provider = await bench.providerReport();
  await bench.stop();
  const checks = burstChecks(burst, provider);
  if (json) {
    console.log(
      JSON.stringify({
        date: new Date().toISOString().slice(0, 10),
        machine: machine(),
        scale,
        only,
        burst,
        mailDown,
        provider,
        stalls: stalls.count,
        checks,
      }),
    );
  } else {
    printBurst(burst, mailDown, provider, checks);
  }
  process.exit(0);
}

/** The big day's daily passes, the outage, the idle month over 100,000 listed, and the small plan. */
async function asideParts() {
  const bigDay = await after100kDay({ scale });
  const mailOutage = await outage({ scale });
  // No visit to / in an idle month: what one costs is not needed here.
  const idleAt100k = await idleMonthOver(Math.round(100_000 * scale), {
    visit: { requests: 0, bytes: 0, files: [] },
    visitsPerSignup,
    label: "an idle month over 100,000",
  });
  const small = await smallPlan();
  return { bigDay, mailOutage, idleMonthAt100k: idleAt100k.month, smallPlan: small };
}

/** asideParts() in a process of its own: its progress on this one's standard error, its figures when it ends. */
function asideProcess(): Promise<Awaited<ReturnType<typeof asideParts>>> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [require.resolve("tsx/cli"), __filename, "--aside", "--scale", String(scale)],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) =>
        error
          ? reject(error)
          : resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Awaited<ReturnType<typeof asideParts>>),
    );
    child.stderr?.pipe(process.stderr);
    // A run that ends early (a failure, Ctrl-C) leaves no second process behind.
    process.once("exit", () => child.kill());
  });
}

async function main() {
  if (only === "burst") return burstOnly();
  if (aside) {
    console.log(JSON.stringify(await asideParts()));
    process.exit(0);
  }
  const began = performance.now();
  const besides = asideProcess();
  // Settled at once, awaited below: a failure there ends the run then, not as an unhandled rejection before.
  besides.catch(() => {});
  const date = new Date().toISOString().slice(0, 10);
  // Before any deployment fakes the clock: Chromium and the site's server run on the real one.
  const visit = await measureVisit();
  // Each part's figures as it ends, on standard error: a run that dies later keeps them.
  const shown = <T>(name: string, figures: T) => (progress(`${name}: ${JSON.stringify(figures)}`), figures);
  const measured = shown("per request, bursts, retention, races", await measure());
  const monthly = shown("months", await months(visit, { scale, visitsPerSignup }));
  const { bigDay, mailOutage, idleMonthAt100k, smallPlan: small } = await besides;
  shown("after the big day", bigDay);
  shown("the outage", mailOutage);
  shown("the small plan", small);
  const credits = creditsFigures(monthly, idleMonthAt100k, visit, visitsPerSignup);
  const { burst } = measured.results.viralMinute;
  // The provider as the bursts and the months saw it (the parts aside have their own).
  const provider = sumProviderFigures(monthly.provider, measured.provider);
  const checks = benchChecks({
    viralMonth: {
      lost: monthly.lost,
      refusedForLimits: monthly.viralMail.refusedForLimits,
      refusedForQuota: monthly.viralMail.refusedForQuota,
      throttled: monthly.viralMail.throttled,
      sent: monthly.viralMail.sent,
    },
    burst,
    provider,
    outage: mailOutage,
    mailedAfterSuppression: monthly.provider.mailedAfterSuppression,
    credits: {
      idleMonth: credits.idleMonth.total,
      viralMonth: credits.viralMonth.total,
      idleMonthAt100k: credits.idleMonthAt100k.total,
    },
    smallPlan: {
      acknowledged: small.acknowledged,
      sentOnTheDay: small.sentOnTheDay,
      dailyLimit: small.provider.dailyLimit,
      refused: small.refusedOnTheDay + small.refusedTheNextDay,
      digest: small.digest,
    },
  });
  const minutes = Math.round((performance.now() - began) / 60_000);
  const latency = {
    blobsMedianMs: netlifySpeed.blobs.medianMs,
    blobsSlowMs: netlifySpeed.blobs.slowMs,
    blobsSlowEvery: netlifySpeed.blobs.slowEvery,
    blobs503Every: netlifySpeed.blobs.failEvery,
    smtpMs: netlifySpeed.mail.ms,
    smtpSlowMs: netlifySpeed.mail.slowMs,
    smtpSlowEvery: netlifySpeed.mail.slowEvery,
    clock: "simulated",
    /** Times the simulated clock was moved on because something waited in real time (latency.ts); 0 is exact. */
    stalls: stalls.count,
  };
  const daily = { afterViralMonth: monthly.afterViralMonth, after100kDay: bigDay };
  if (json) {
    console.log(
      JSON.stringify({
        date,
        machine: machine(),
        minutes,
        scale,
        latency,
        store: "blobs",
        ...figures(measured.results),
        daily,
        outage: mailOutage,
        provider,
        viralMonthMail: monthly.viralMail,
        founders: monthly.founders,
        smallPlan: small,
        visitsPerSignup,
        credits,
        checks,
      }),
    );
  } else {
    printReport(measured.results, measured.totals, { daily, outage: mailOutage, scale });
    console.log("");
    printCredits(credits);
    console.log("");
    printMail({ provider, founders: monthly.founders, smallPlan: small, checks });
    console.log(`The run took ${minutes} minutes.`);
  }
  process.exit(0);
}

void main();
