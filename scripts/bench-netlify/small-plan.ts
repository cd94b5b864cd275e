// A small plan: the site on Resend's free plan (MAIL_PROVIDER=resend-free: 2 messages a second, 100 a day), through a
// provider stand-in that refuses as Resend's would past those, and a day of 1,000 signups from 08:00 to 20:00 UTC, one
// at a time, the sweep every five minutes. Does the site stop at its 100 itself, refusing nobody, and what does the
// founders' digest say the next midnight of the pace, the hold and the confirmations owed? The day after's daily pass
// and the drains it starts then send the next day's 100. Not scaled: it is small, and its point is the daily limit.
import { type Deployment, progress, startDeployment } from "./deployment";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
/** Monday 1 March 2027, 1,000 signups from 08:00 to 20:00 UTC. */
export const smallPlanDay = { start: Date.UTC(2027, 2, 1), signups: 1_000, from: 8 * hour, lasts: 12 * hour };
/** Where the founders' digest goes (deployment.ts's FOUNDERS_DIGEST_TO). */
const digestTo = "founders@jointandem.app";
/** The retention: an unconfirmed signup is removed this many days after it was asked. */
const retentionDays = 30;

/** The digest's lines about the mail's pace: the pace, a hold, the confirmations owed, and any warning. */
export function paceLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^(The pace:|Held until|Confirmations owed:|Warning:)/.test(line));
}

/** The count the digest gives of those who would reach their 30th day unmailed: 0 when it warns of none. */
export function expiringNamed(lines: readonly string[]): number {
  const warned = lines.map((line) => /(\d[\d,]*) would reach their 30th day unmailed/.exec(line)).find(Boolean);
  return warned ? Number(warned[1]!.replaceAll(",", "")) : 0;
}

/**
 * How many of `owed`, all asked on one day, would reach their 30th day unmailed when, from the next day on, `perDay`
 * go a day: those past the days the retention leaves (the next day to the 30th after, both included).
 */
export const expiringAtPace = (owed: number, perDay: number) => Math.max(0, owed - retentionDays * perDay);

/** The owed count the digest gives ("Confirmations owed: 900, …"): 0 for none. */
export function owedNamed(lines: readonly string[]): number | null {
  const line = lines.find((one) => one.startsWith("Confirmations owed:"));
  if (!line) return null;
  const count = /^Confirmations owed: (\d[\d,]*)/.exec(line);
  return count ? Number(count[1]!.replaceAll(",", "")) : 0;
}

/** What the provider took on the UTC day from `from` (ms), the founders' digest aside. */
const sentOn = (bench: Deployment, from: number) =>
  bench.smtp.deliveries.filter(
    (delivery) => delivery.at >= from && delivery.at < from + day && !delivery.envelope.to.includes(digestTo),
  ).length;

export async function smallPlan() {
  const { start, signups, from, lasts } = smallPlanDay;
  const bench = await startDeployment({ start: start - hour, provider: "resend-free" });
  const { advanceTo, invoke, signup, post, nextIp } = bench;
  progress(`a small plan: ${signups.toLocaleString("en")} signups in a day on Resend's free plan`);
  let acknowledged = 0;
  let nextSweep = start;
  const sweepsUntil = async (at: number) => {
    for (; nextSweep <= at; nextSweep += 5 * minute) {
      await advanceTo(nextSweep);
      await bench.sweep();
    }
  };
  for (let i = 0; i < signups; i++) {
    const at = start + from + Math.floor((i * lasts) / signups);
    await sweepsUntil(at);
    await advanceTo(at);
    const reply = await invoke(signup, post(`small${i}@example.com`), nextIp());
    if (reply !== "killed" && reply.status === 200) acknowledged++;
  }
  await sweepsUntil(start + day - 1);
  const onTheDay = { ...bench.providerFigures(), sentOnTheDay: sentOn(bench, start) };
  // Midnight: the daily pass sends the founders' digest of the day, then what is owed, and starts drains.
  await advanceTo(start + day);
  await bench.daily();
  await bench.settled();
  const digest = bench.smtp.deliveries.find(
    (delivery) => delivery.envelope.to.includes(digestTo) && delivery.at >= start + day,
  );
  const lines = paceLines(digest?.mail.text ?? "");
  const owed = owedNamed(lines);
  const after = bench.providerFigures();
  await bench.stop();
  const dailyLimit = onTheDay.dailyLimit ?? Infinity;
  return {
    provider: after,
    signups,
    acknowledged,
    sentOnTheDay: onTheDay.sentOnTheDay,
    /** Refused for the provider's daily quota, and its throttle replies (held and sent again, nobody refused). */
    refusedOnTheDay: onTheDay.refusedForQuota,
    throttledOnTheDay: onTheDay.throttled,
    sentTheNextDay: sentOn(bench, start + day),
    refusedTheNextDay: after.refusedForQuota - onTheDay.refusedForQuota,
    throttledTheNextDay: after.throttled - onTheDay.throttled,
    digest: {
      subject: digest?.mail.subject ?? null,
      lines,
      owed,
      expiringNamed: expiringNamed(lines),
      expiringAtPace: owed === null ? null : expiringAtPace(owed, dailyLimit),
    },
  };
}

export type SmallPlan = Awaited<ReturnType<typeof smallPlan>>;
