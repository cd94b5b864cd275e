// What a month of the waitlist costs in Netlify credits: the bundled functions driven through a simulated month of
// traffic (every scheduled run, every signup with its visits to /, every confirmation), each invocation's run time
// (on the simulated clock, at Netlify's speed: latency.ts) and reply measured, and Netlify's meters applied
// (credits.ts), with the scheduled runs counted as web requests and without.
//
// Two months are run, each on a deployment of its own:
// - idle: 30 days without a signup over the 13,000 addresses the viral month leaves, every scheduled run of it;
// - viral: 30 days of 100 signups a day from 08:00 to midnight UTC, 3 in 5 confirming within the hour, and on the
//   15th, 10,000 more from noon to 18:00, with 4 production deploys. The trickle month is that run without the viral
//   day's own signups, confirmations and deploys: its invocations are tagged, and those are left out.
// Then the viral month's deployment goes on, without traffic, to 32 days after its viral day: every daily pass after
// that day, and whether the 4,000 of it who never confirmed are gone 30 days on (daily.ts).
// `scale` multiplies the signups (and the idle list), not the days: every scheduled run is run at any scale.
import { confirmLinks } from "../../test/support/smtp";
import { type MonthMeters, scheduledAsRequests } from "./credits";
import { dailyPassesAfter } from "./daily";
import { type Deployment, median, progress, startDeployment } from "./deployment";
import type { Visit } from "./visit";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
/** December 2026, from midnight UTC. */
const monthStart = Date.UTC(2026, 11, 1);
const monthDays = 30;
/** waitlist-sweep runs every five minutes. */
const sweepEvery = 5 * minute;
const trickle = { perDay: 100, from: 8 * hour, to: 24 * hour };
/** The viral day: the 15th, from noon UTC. */
export const viral = { day: 14, signups: 10_000, from: 12 * hour, lasts: 6 * hour, deploys: 4 };
/** 3 signups in 5 confirm, between 5 and 59 minutes after they signed up. */
const confirms = (index: number) => index % 5 < 3;
const confirmAfter = (index: number) => (5 + ((index * 37) % 55)) * minute;
/** The list an idle month keeps: the viral month's signups. */
export const idleListed = trickle.perDay * monthDays + viral.signups;
/** Visits to / for each signup, unless --visits-per-signup says otherwise: a landing page converts about 1 in 5. */
export const defaultVisitsPerSignup = 5;
/** The goals of the store a new site gets, in credits a month: room under the Free plan's 300. */
export const goals = { idleMonth: 10, viralMonth: 250 } as const;
/**
 * Invocations of the viral day that run at once, as Netlify runs them on instances of their own, each group at its
 * first one's time: the day's 10,000 signups and 6,000 confirmations would take an hour one at a time. On the
 * simulated clock each still takes its own time, as on an instance of its own.
 */
export const atOnce = 25;

type Tag = "scheduled" | "trickle" | "viral";
type Event =
  | { at: number; tag: "scheduled"; kind: "sweep" | "daily" }
  | { at: number; tag: "trickle" | "viral"; kind: "signup" | "confirm"; email: string };

/** The month's events in the order they happen; at one moment, scheduled runs first (midnight: the daily pass). */
function schedule({ withTraffic, scale }: { withTraffic: boolean; scale: number }): Event[] {
  const events: Event[] = [];
  for (let d = 0; d < monthDays; d++) {
    events.push({ at: monthStart + d * day, tag: "scheduled", kind: "daily" });
    for (let at = 0; at < day; at += sweepEvery) {
      events.push({ at: monthStart + d * day + at, tag: "scheduled", kind: "sweep" });
    }
  }
  const signups = (tag: "trickle" | "viral", count: number, from: number, lasts: number, name: string) => {
    for (let i = 0; i < count; i++) {
      const at = from + Math.floor((i * lasts) / count);
      const email = `${name}${i}@example.com`;
      events.push({ at, tag, kind: "signup", email });
      if (confirms(i)) events.push({ at: at + confirmAfter(i), tag, kind: "confirm", email });
    }
  };
  if (withTraffic) {
    for (let d = 0; d < monthDays; d++) {
      const from = monthStart + d * day;
      signups(
        "trickle",
        Math.round(trickle.perDay * scale),
        from + trickle.from,
        trickle.to - trickle.from,
        `trickle${d}-`,
      );
    }
    signups(
      "viral",
      Math.round(viral.signups * scale),
      monthStart + viral.day * day + viral.from,
      viral.lasts,
      "viral",
    );
  }
  return events.sort((a, b) => a.at - b.at);
}

type Kind = "sweep" | "daily" | "signup" | "confirm page" | "confirm button";

interface Invocation {
  kind: Kind;
  ms: number;
  /** The reply's bytes: its body and headers, as the function wrote them. */
  bytes: number;
  killed: boolean;
}

/** What ran at one moment of the month, and what it cost the store. */
interface Step {
  at: number;
  end: number;
  tag: Tag;
  invocations: Invocation[];
  blobsOps: number;
}

/** Runs the month's events on `bench`, in order, each at its time on the simulated clock. */
async function run(bench: Deployment, events: readonly Event[], label: string): Promise<Step[]> {
  const { clock, smtp, invoke, post, opened, pressed, nextIp } = bench;
  const delivered = new Map<string, string>();
  let indexed = 0;
  /** The confirm link of the mail to `email`. */
  const linkTo = (email: string) => {
    for (; indexed < smtp.deliveries.length; indexed++) {
      const delivery = smtp.deliveries[indexed]!;
      for (const to of delivery.envelope.to) delivered.set(to, confirmLinks(delivery.mail).text);
    }
    return delivered.get(email);
  };
  // The simulated clock's time: Netlify's speed (latency.ts). A killed invocation is billed its limit.
  const timed = async (kind: Kind, call: () => Promise<Response | "killed">) => {
    const began = Date.now();
    const reply = await call();
    const ms = Date.now() - began;
    if (reply === "killed") return { kind, ms, bytes: 0, killed: true };
    const body = (await reply.arrayBuffer()).byteLength;
    const headers = [...reply.headers].reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
    return { kind, ms, bytes: body + headers, killed: false };
  };
  const perform = async (event: Event): Promise<Invocation[]> => {
    if (event.tag === "scheduled") return [await timed(event.kind, bench[event.kind])];
    if (event.kind === "signup") {
      return [await timed("signup", () => invoke(bench.signup, post(event.email), nextIp()))];
    }
    const link = linkTo(event.email);
    // No mail, no link to follow: counted as lost.
    if (!link) return [];
    return [
      await timed("confirm page", () => invoke(bench.confirm, opened(link), nextIp())),
      await timed("confirm button", () => invoke(bench.confirm, pressed(link, "/waitlist/confirm"), nextIp())),
    ];
  };

  const blobsOps = async () => {
    await bench.blobs.settled();
    return bench.blobs.operations.length;
  };
  let lastOps = await blobsOps();
  const steps: Step[] = [];
  let shownDay = -1;
  for (let i = 0; i < events.length;) {
    const first = events[i]!;
    const group = [first];
    while (first.tag === "viral" && group.length < atOnce && events[i + group.length]?.tag === "viral") {
      group.push(events[i + group.length]!);
    }
    i += group.length;
    const dayOf = Math.floor((first.at - monthStart) / day);
    if (dayOf !== shownDay && dayOf < monthDays) progress(`${label}: day ${(shownDay = dayOf) + 1} of ${monthDays}`);
    // Never back in time: the viral day's groups may run behind its schedule.
    clock.setSystemTime(Math.max(first.at, Date.now()));
    const at = Date.now();
    const invocations = (await Promise.all(group.map((event) => perform(event)))).flat();
    const end = Date.now();
    const nowOps = await blobsOps();
    steps.push({ at, end, tag: first.tag, invocations, blobsOps: nowOps - lastOps });
    lastOps = nowOps;
  }
  return steps;
}

/** Signups lost: not stored, not mailed exactly once, or confirmed by their link and not kept as confirmed. */
async function lost(bench: Deployment, events: readonly Event[]) {
  // The ledger the founders read (on Blobs) is brought up to date by a sweep: one after the month, not counted.
  await bench.sweep();
  const rows = new Map((await bench.store.all()).map((row) => [row.email, row]));
  const mails = new Map<string, number>();
  for (const delivery of bench.smtp.deliveries) {
    for (const to of delivery.envelope.to) mails.set(to, (mails.get(to) ?? 0) + 1);
  }
  return events.filter(
    (event) =>
      (event.kind === "signup" && (!rows.has(event.email) || mails.get(event.email) !== 1)) ||
      (event.kind === "confirm" && !rows.get(event.email)?.confirmedAt),
  ).length;
}

/** A month's figures: its credits by meter and what they measured, from the steps of the tags it is made of. */
function month(
  steps: readonly Step[],
  tags: readonly Tag[],
  {
    visit,
    visitsPerSignup,
    deploys,
    mails,
    without,
  }: { visit: Visit; visitsPerSignup: number; deploys: number; mails: number; without?: { from: number; to: number } },
) {
  const own = steps.filter((step) => tags.includes(step.tag));
  const all = own.flatMap((step) => step.invocations);
  const kinds = ["sweep", "daily", "signup", "confirm page", "confirm button"] as const;
  const medianOf = (kind: Kind, from: readonly Invocation[]) =>
    median(from.filter((one) => one.kind === kind).map((one) => one.ms));
  // Scheduled runs in the hours of traffic `without` this month are billed at the month's median sweep.
  const outside = (step: Step) => !without || step.at < without.from || step.at > without.to;
  const usualSweep = medianOf(
    "sweep",
    own.filter(outside).flatMap((step) => step.invocations),
  );
  const billedMs = (step: Step, one: Invocation) => (!outside(step) && one.kind === "sweep" ? usualSweep : one.ms);
  const functionMs = own.reduce(
    (sum, step) => sum + step.invocations.reduce((ms, one) => ms + billedMs(step, one), 0),
    0,
  );
  const count = (kind: Kind) => all.filter((one) => one.kind === kind).length;
  const signups = count("signup");
  const visits = signups * visitsPerSignup;
  const scheduled = count("sweep") + count("daily");
  const meters: MonthMeters = {
    functionMs,
    requests: visits * visit.requests + all.length,
    scheduledInvocations: scheduled,
    bytes: visits * visit.bytes + all.reduce((sum, one) => sum + one.bytes, 0),
    productionDeploys: deploys,
  };
  const { counted, notCounted } = scheduledAsRequests(meters);
  const { meters: _meters, ...countedTotals } = counted;
  const { meters: _notCountedMeters, ...notCountedTotals } = notCounted;
  return {
    // What Netlify's pages support: a scheduled run is no web request.
    ...notCounted,
    scheduledAsRequests: { counted: countedTotals, notCounted: notCountedTotals },
    signups,
    visits,
    mails,
    confirmations: count("confirm button"),
    sweeps: count("sweep"),
    dailyPasses: count("daily"),
    meters: {
      ...notCounted.meters,
      functionMs: Math.round(functionMs),
      functionInvocations: all.length,
      scheduledInvocations: scheduled,
      visitRequests: visits * visit.requests,
      blobsOperations: own.reduce((sum, step) => sum + step.blobsOps, 0),
      killed: all.filter((one) => one.killed).length,
      medianMs: Object.fromEntries(
        kinds.map((kind) => [kind, count(kind) ? Math.round(medianOf(kind, all) * 10) / 10 : null]),
      ),
    },
  };
}

/**
 * The three months' credits, the signups lost in them, and the daily passes after the viral month. `scale` multiplies
 * the signups; `visitsPerSignup` the visits to / each signup comes from.
 */
export async function months(visit: Visit, { scale = 1, visitsPerSignup = defaultVisitsPerSignup } = {}) {
  const idleBench = await startDeployment({ start: monthStart });
  await idleBench.backend.seedTo(Math.round(idleListed * scale));
  const idleSteps = await run(idleBench, schedule({ withTraffic: false, scale }), "an idle month");
  await idleBench.stop();

  const bench = await startDeployment({ start: monthStart });
  const events = schedule({ withTraffic: true, scale });
  const steps = await run(bench, events, "a trickle and a viral day");
  const mailsTo = (prefix: string) =>
    bench.smtp.deliveries.filter((delivery) => delivery.envelope.to.some((to) => to.startsWith(prefix))).length;
  const viralDay = monthStart + viral.day * day;
  const viralHours = {
    from: viralDay + viral.from,
    // Until the last of its confirmations.
    to: viralDay + viral.from + viral.lasts + hour,
  };
  const priced = { visit, visitsPerSignup };
  const figures = {
    idleMonth: month(idleSteps, ["scheduled"], { ...priced, deploys: 0, mails: 0 }),
    trickleMonth: month(steps, ["scheduled", "trickle"], {
      ...priced,
      deploys: 0,
      mails: mailsTo("trickle"),
      without: viralHours,
    }),
    viralMonth: month(steps, ["scheduled", "trickle", "viral"], {
      ...priced,
      deploys: viral.deploys,
      mails: mailsTo("trickle") + mailsTo("viral"),
    }),
    lost: await lost(bench, events),
  };
  // The month's daily passes after the viral day, then every scheduled run on to 32 days after it.
  const monthsPasses = steps
    .filter((step) => step.at >= viralDay + day)
    .flatMap((step) => step.invocations.filter((one) => one.kind === "daily"))
    .map(({ ms, killed }) => ({ ms, killed }));
  const afterViralMonth = await dailyPassesAfter(bench, viralDay, {
    fromDay: monthDays - viral.day,
    before: monthsPasses,
    label: "after the viral month",
  });
  await bench.stop();
  return { ...figures, afterViralMonth };
}

export type Months = Awaited<ReturnType<typeof months>>;

/** How each month was measured, for the report. */
export const method = {
  idleMonth: `every scheduled run of 30 days (8,640 sweeps, 30 daily passes) over ${idleListed.toLocaleString("en")} listed addresses`,
  trickleMonth:
    "the viral month's run without the viral day's own signups, confirmations and deploys; the sweeps of those hours billed at the month's median sweep",
  viralMonth: `every run of 30 days: the trickle, and on the 15th ${viral.signups.toLocaleString("en")} signups from noon to 18:00 UTC, ${atOnce} at a time, each billed its own time; ${viral.deploys} production deploys`,
};
