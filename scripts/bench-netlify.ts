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
// Its parts, in scripts/bench-netlify/: the functions, servers and clock it runs on (deployment.ts), the two stores
// (backends.ts), each measurement (per-request.ts, burst.ts, sweeps.ts, races.ts), and what it prints (report.ts).
import { burstSize, viralMinute } from "./bench-netlify/burst";
import { startDeployment } from "./bench-netlify/deployment";
import { perRequest } from "./bench-netlify/per-request";
import { races } from "./bench-netlify/races";
import { figures, printReport } from "./bench-netlify/report";
import { backlog, retention } from "./bench-netlify/sweeps";

const storeKind = process.argv.includes("--store") ? process.argv[process.argv.indexOf("--store") + 1] : "postgres";
if (storeKind !== "postgres" && storeKind !== "blobs")
  throw new Error(`--store postgres or --store blobs, not ${storeKind}`);
const json = process.argv.includes("--json");

async function main(store: "postgres" | "blobs") {
  const bench = await startDeployment(store);
  if (!json)
    console.log(`Functions: Netlify's bundles (${bench.functions}), on Node ${process.versions.node}, over ${store}.`);
  const results = {
    store,
    perRequest: await perRequest(bench),
    viralMinute: await viralMinute(bench),
    // None of the two bursts' signups confirmed.
    retention: await retention(bench, 2 * burstSize),
    races: await races(bench),
    backlog: await backlog(bench),
  };
  if (json) {
    console.log(JSON.stringify(figures(results)));
  } else {
    printReport(results, { apiCalls: bench.api.calls.length, limited: bench.api.limited, logLines: bench.logLines() });
  }
  await bench.stop();
  process.exit(0);
}

void main(storeKind);
