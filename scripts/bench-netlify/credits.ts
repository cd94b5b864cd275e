// What a month costs in Netlify credits: Netlify's meters and their published rates, applied to what a simulated
// month measured (months.ts). Pure arithmetic, tested in credits.test.ts. The function run time it is given is the
// simulated clock's (latency.ts): Netlify's speed, not the stand-ins'.

/** When the rates below were read from Netlify's documentation. */
export const ratesRead = "2026-11-26";

/**
 * Netlify's rates, each with the page it was read from. The page for the credit-based plans ("How credits work")
 * publishes no rate for web requests, bandwidth or production deploys: those are the ones "How credits work for
 * enterprise plans" publishes, the only published ones. Compute has a self-serve rate of its own, twice the
 * enterprise page's 5 credits per GB-hour.
 */
export const rates = {
  computePerGbHour: 10,
  functionMemoryGb: 1,
  requestsPer10k: 2,
  bandwidthPerGb: 20,
  productionDeploy: 15,
  database: { perUnitHour: 10, minUnits: 1, sleepAfterMs: 5 * 60_000 },
} as const;

export const rateSources = {
  compute:
    "10 credits per GB-hour, functions at 1,024 MB by default: docs.netlify.com/build/functions/usage-and-billing (credit-based plans)",
  requests:
    "2 credits per 10,000 web requests: docs.netlify.com/manage/accounts-and-billing/billing/billing-for-credit-based-plans/how-credits-work-for-enterprise-plans (no self-serve rate published)",
  bandwidth: "20 credits per GB: the same enterprise page (no self-serve rate published)",
  deploys: "15 credits a production deploy: the same enterprise page (no self-serve rate published)",
  database:
    "10 credits per compute-unit-hour, at least 1 unit while awake: docs.netlify.com/build/data-and-storage/netlify-database/billing-and-usage; asleep 5 minutes after the last query, any query wakes it: …/netlify-database/configure-sleep-on-inactivity",
} as const;

/** Queries made from `from` to `to` (ms): one query is from = to. */
export interface QuerySpan {
  from: number;
  to: number;
}

/**
 * When the database is awake: a query wakes it, and it sleeps once no query has come for `sleepAfterMs`. Each span
 * of queries keeps it awake from its first query until `sleepAfterMs` after its last; overlapping stretches are one.
 */
export function awakeStretches(spans: readonly QuerySpan[], sleepAfterMs: number = rates.database.sleepAfterMs) {
  const stretches: QuerySpan[] = [];
  for (const { from, to } of [...spans].sort((a, b) => a.from - b.from)) {
    const last = stretches.at(-1);
    if (last && from <= last.to) last.to = Math.max(last.to, to + sleepAfterMs);
    else stretches.push({ from, to: to + sleepAfterMs });
  }
  return stretches;
}

/** Netlify Database's compute meter: the hours it is awake, at its least compute units, priced by the unit-hour. */
export function databaseMeter(spans: readonly QuerySpan[], database = rates.database) {
  const stretches = awakeStretches(spans, database.sleepAfterMs);
  const hours = stretches.reduce((sum, { from, to }) => sum + (to - from), 0) / 3_600_000;
  return { wakes: stretches.length, awakeHours: hours, credits: hours * database.minUnits * database.perUnitHour };
}

/** What a month measured, for each meter. */
export interface MonthMeters {
  /** Every function invocation's run time, summed (ms). */
  functionMs: number;
  /** Web requests: the visits' (pages and their files), the functions' own, and the scheduled invocations. */
  requests: number;
  /** Of `requests`, the scheduled invocations: Netlify's pages do not say whether they are web requests. */
  scheduledInvocations?: number;
  /** Bytes sent: the visits' files and the functions' replies. */
  bytes: number;
  /**
   * When Netlify Database was queried. The bench no longer runs it (the Netlify deployment keeps the list in Blobs
   * only); the meter stays to price what the docs say it would cost.
   */
  databaseQueries?: readonly QuerySpan[];
  productionDeploys: number;
}

const round = (credits: number) => Math.round(credits * 100) / 100;

/** Credits by meter, and their total (each rounded to a hundredth; the total is of the unrounded). */
export function monthCredits({ functionMs, requests, bytes, databaseQueries = [], productionDeploys }: MonthMeters) {
  const gbHours = (functionMs / 3_600_000) * rates.functionMemoryGb;
  const database = databaseMeter(databaseQueries);
  const byMeter = {
    database: database.credits,
    compute: gbHours * rates.computePerGbHour,
    requests: (requests / 10_000) * rates.requestsPer10k,
    // Decimal gigabytes: Netlify's pages do not say which, and these are the more.
    bandwidth: (bytes / 1e9) * rates.bandwidthPerGb,
    deploys: productionDeploys * rates.productionDeploy,
  };
  const total = Object.values(byMeter).reduce((sum, credits) => sum + credits, 0);
  return {
    total: round(total),
    database: round(byMeter.database),
    compute: round(byMeter.compute),
    requests: round(byMeter.requests),
    bandwidth: round(byMeter.bandwidth),
    deploys: round(byMeter.deploys),
    meters: {
      databaseAwakeHours: Math.round(database.awakeHours * 100) / 100,
      databaseWakes: database.wakes,
      gbHours: Math.round(gbHours * 1000) / 1000,
      webRequests: requests,
      bandwidthGb: Math.round((bytes / 1e9) * 1000) / 1000,
      productionDeploys,
    },
  };
}

/**
 * A month priced both ways: with its scheduled invocations counted as web requests, and without. Netlify's pages
 * count web requests to a site; none says a scheduled run (a cron trigger, no request from anyone) is one.
 */
export function scheduledAsRequests(meters: MonthMeters) {
  return {
    counted: monthCredits(meters),
    notCounted: monthCredits({ ...meters, requests: meters.requests - (meters.scheduledInvocations ?? 0) }),
  };
}

/** What one visit to / costs, in credits: its web requests and its bytes. */
export function visitCredits({ requests, bytes }: { requests: number; bytes: number }) {
  return (requests / 10_000) * rates.requestsPer10k + (bytes / 1e9) * rates.bandwidthPerGb;
}
