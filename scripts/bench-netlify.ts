// npm run bench:netlify [-- --json] [-- --store blobs|postgres]: what the Netlify deployment's waitlist costs, on
// each store a site can keep it in (Netlify Blobs, the default, then Netlify Database; --store for one): per
// request as the list grows, whether a viral minute loses anything, what concurrent requests on one address or one
// store do, how fast a backlog of owed mail clears, what removing the unconfirmed signups 30 days later costs, and
// what a month costs in Netlify credits, idle, with a trickle of signups, and with a viral day.
// The functions as Netlify bundles them get real web Requests (each with Netlify's 60 s limit; a scheduled run with
// its 30 s), over Netlify Database as a real Postgres (statements counted by pg_stat_statements), or over
// @netlify/blobs' local server with a stand-in of Netlify's API that enforces 500 calls a minute per token; a real
// SMTP server takes the mail. Time is simulated where minutes pass (Date only: the bursts' spread, the retry
// schedule, the sweeps every five minutes, the months). The credits price each signup's visit to / from the built
// site: run `npm run build:netlify` first.
// Prints figures; it is not a test and sets no pass mark (it says whether the default store meets its credit goals).
// Its parts, in scripts/bench-netlify/: the functions, servers and clock it runs on (deployment.ts), the two stores
// (backends.ts), each measurement (per-request.ts, burst.ts, sweeps.ts, races.ts), the months (months.ts, visit.ts)
// and their credits (credits.ts), and what it prints (report.ts).
import { performance } from "node:perf_hooks";
import { burstSize, viralMinute } from "./bench-netlify/burst";
import { type StoreKind, defaultStore, startDeployment } from "./bench-netlify/deployment";
import { type Months, monthsOn } from "./bench-netlify/months";
import { perRequest } from "./bench-netlify/per-request";
import { races } from "./bench-netlify/races";
import { creditsFigures, figures, machine, printCredits, printReport, type Results } from "./bench-netlify/report";
import { backlog, retention } from "./bench-netlify/sweeps";
import { measureVisit } from "./bench-netlify/visit";

const stores: StoreKind[] = [defaultStore, "postgres"];
const only = process.argv.includes("--store") ? process.argv[process.argv.indexOf("--store") + 1] : undefined;
if (only !== undefined && !stores.includes(only as StoreKind)) {
  throw new Error(`--store blobs or --store postgres, not ${only}`);
}
const json = process.argv.includes("--json");

async function measure(store: StoreKind) {
  const bench = await startDeployment(store);
  if (!json)
    console.log(`Functions: Netlify's bundles (${bench.functions}), on Node ${process.versions.node}, over ${store}.`);
  const results: Results = {
    store,
    perRequest: await perRequest(bench),
    viralMinute: await viralMinute(bench),
    // None of the two bursts' signups confirmed.
    retention: await retention(bench, 2 * burstSize),
    races: await races(bench),
    backlog: await backlog(bench),
  };
  const totals = { apiCalls: bench.api.calls.length, limited: bench.api.limited, logLines: bench.logLines() };
  await bench.stop();
  return { results, totals };
}

async function main() {
  const began = performance.now();
  const date = new Date().toISOString().slice(0, 10);
  // Before any deployment fakes the clock: Chromium and the site's server run on the real one.
  const visit = await measureVisit();
  const measured: { results: Results; totals: Awaited<ReturnType<typeof measure>>["totals"] }[] = [];
  const months: Partial<Record<StoreKind, Months>> = {};
  for (const store of only ? [only as StoreKind] : stores) measured.push(await measure(store));
  for (const store of only ? [only as StoreKind] : stores) months[store] = await monthsOn(store, visit);
  const credits = creditsFigures(months, visit);
  const minutes = Math.round((performance.now() - began) / 60_000);
  if (json) {
    console.log(
      JSON.stringify({
        date,
        machine: machine(),
        minutes,
        stores: Object.fromEntries(measured.map(({ results }) => [results.store, figures(results)])),
        credits,
      }),
    );
  } else {
    for (const { results, totals } of measured) {
      printReport(results, totals);
      console.log("");
    }
    printCredits(credits);
    console.log(`The run took ${minutes} minutes.`);
  }
  process.exit(0);
}

void main();
