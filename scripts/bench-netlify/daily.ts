// The daily pass at Netlify's speed, after a big day: does each pass finish within the scheduled function's 30 s,
// and are the signups that never confirmed gone 30 days on? After the viral month (months.ts goes on to 32 days after
// its viral day), and after a day of 100,000 signups seeded straight into the store (backends.ts, seedDay), of which
// the days 30 to 32 after it are run: every sweep and daily pass of them.
import { type Deployment, progress, startDeployment } from "./deployment";

const minute = 60_000;
const day = 24 * 60 * minute;
/** The retention: a signup never confirmed is removed this long after it was asked. */
const retentionDays = 30;
/** The big day: Monday 1 February 2027, 100,000 signups. */
const bigDay = { start: Date.UTC(2027, 1, 1), signups: 100_000 };

/** A daily pass: its time on the simulated clock, and whether its 30 s limit killed it. */
export interface Pass {
  ms: number;
  killed: boolean;
}

/**
 * How many days past its retention the oldest signup still listed and never confirmed is, now: 0 if none is. Read
 * through the store, as the daily pass finds them (a dry look: nothing is tidied).
 */
async function retentionLagDays(bench: Deployment) {
  const now = Date.now();
  const [oldest] = await bench.store.expiredUnconfirmed(new Date(now - retentionDays * day), 1);
  if (!oldest) return 0;
  return Math.round(((now - retentionDays * day - Date.parse(oldest.optInSince)) / day) * 100) / 100;
}

/**
 * Every sweep (every five minutes) and daily pass (at midnight UTC) from `fromDay` days after the day starting at
 * `dayStart` to the pass at the start of day 32 after it, then the retention's lag. `before`: passes already run.
 */
export async function dailyPassesAfter(
  bench: Deployment,
  dayStart: number,
  { fromDay, before = [], label }: { fromDay: number; before?: readonly Pass[]; label: string },
) {
  const passes: Pass[] = [...before];
  let sweepsKilled = 0;
  const last = dayStart + 32 * day;
  for (let at = dayStart + fromDay * day; at <= last; at += 5 * minute) {
    await bench.advanceTo(at);
    if (at % day === 0) {
      progress(`${label}: the daily pass of day ${Math.round((at - dayStart) / day)} after the day`);
      const began = Date.now();
      const outcome = await bench.daily();
      passes.push({ ms: Date.now() - began, killed: outcome === "killed" });
    }
    if (at < last && (await bench.sweep()) === "killed") sweepsKilled++;
  }
  return {
    passes: passes.length,
    longestMs: Math.round(Math.max(0, ...passes.map((pass) => pass.ms))),
    killed: passes.filter((pass) => pass.killed).length,
    sweepsKilled,
    retentionLagDays: await retentionLagDays(bench),
  };
}

/** A day of 100,000 signups (times `scale`), 2 in 5 never confirming; the days 30 to 32 after it. */
export async function after100kDay({ scale = 1 } = {}) {
  const bench = await startDeployment({ start: bigDay.start - day });
  const signups = Math.round(bigDay.signups * scale);
  progress(`a day of ${signups.toLocaleString("en")} signups, seeded`);
  await bench.backend.seedDay(signups, bigDay.start);
  const result = await dailyPassesAfter(bench, bigDay.start, { fromDay: retentionDays, label: "after the big day" });
  await bench.stop();
  return { signups, ...result };
}
