// What a month of the waitlist costs in Netlify credits, on each store: the bundled functions driven through a
// simulated month of traffic (every scheduled run, every signup with its page visit, every confirmation), each
// invocation's run time, reply and database statements measured, and Netlify's meters applied (credits.ts).
//
// Two months are run on each store, each on a deployment of its own:
// - idle: 30 days without a signup over the 13,000 addresses the viral month leaves, every scheduled run of it;
// - viral: 30 days of 100 signups a day from 08:00 to midnight UTC, 3 in 5 confirming within the hour, and on the
//   15th, 10,000 more from noon to 18:00, with 4 production deploys. The trickle month is that run without the viral
//   day's own signups, confirmations and deploys: its invocations are tagged, and those are left out.
import { performance } from "node:perf_hooks";
import { confirmLinks } from "../../test/support/smtp";
import { type MonthMeters, type QuerySpan, monthCredits } from "./credits";
import { type Deployment, type StoreKind, median, progress, startDeployment } from "./deployment";
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
const viral = { day: 14, signups: 10_000, from: 12 * hour, lasts: 6 * hour, deploys: 4 };
/** 3 signups in 5 confirm, between 5 and 59 minutes after they signed up. */
const confirms = (index: number) => index % 5 < 3;
const confirmAfter = (index: number) => (5 + ((index * 37) % 55)) * minute;
/** The list an idle month keeps: the viral month's signups. */
export const idleListed = trickle.perDay * monthDays + viral.signups;
/** The goals of the store a new site gets, in credits a month: room under the Free plan's 300. */
export const goals = { idleMonth: 10, viralMonth: 250 } as const;
/**
 * Invocations of the viral day that run at once, as Netlify runs them on instances of their own, each group at its
 * first one's time: the day's 10,000 signups and 6,000 confirmations would take an hour one at a time.
 */
const atOnce = 25;

type Tag = "scheduled" | "trickle" | "viral";
type Event =
  | { at: number; tag: "scheduled"; kind: "sweep" | "daily" }
  | { at: number; tag: "trickle" | "viral"; kind: "signup" | "confirm"; email: string };

/** The month's events in the order they happen; at one moment, scheduled runs first (midnight: the daily pass). */
function schedule({ withTraffic }: { withTraffic: boolean }): Event[] {
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
      signups("trickle", trickle.perDay, from + trickle.from, trickle.to - trickle.from, `trickle${d}-`);
    }
    signups("viral", viral.signups, monthStart + viral.day * day + viral.from, viral.lasts, "viral");
  }
  return events.sort((a, b) => a.at - b.at);
}

type Kind = "sweep" | "daily" | "signup" | "confirm page" | "confirm button";

interface Invocation {
  kind: Kind;
  ms: number;
  /** The reply's bytes: its body and headers, as the function wrote them. */
  bytes: number;
  /** Run beside others of the viral day: its own time is not one instance's. */
  atOnce: boolean;
  killed: boolean;
}

/** What ran at one moment of the month, and what it cost the stores. */
interface Step {
  at: number;
  end: number;
  tag: Tag;
  invocations: Invocation[];
  statements: number;
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
  const timed = async (kind: Kind, atOnce: boolean, call: () => Promise<Response | "killed">) => {
    const began = performance.now();
    const reply = await call();
    const ms = performance.now() - began;
    if (reply === "killed") return { kind, ms, bytes: 0, atOnce, killed: true };
    const body = (await reply.arrayBuffer()).byteLength;
    const headers = [...reply.headers].reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
    return { kind, ms, bytes: body + headers, atOnce, killed: false };
  };
  const perform = async (event: Event, atOnce: boolean): Promise<Invocation[]> => {
    if (event.tag === "scheduled") return [await timed(event.kind, atOnce, bench[event.kind])];
    if (event.kind === "signup") {
      return [await timed("signup", atOnce, () => invoke(bench.signup, post(event.email), nextIp()))];
    }
    const link = linkTo(event.email);
    // No mail, no link to follow: counted as lost.
    if (!link) return [];
    return [
      await timed("confirm page", atOnce, () => invoke(bench.confirm, opened(link), nextIp())),
      await timed("confirm button", atOnce, () => invoke(bench.confirm, pressed(link, "/waitlist/confirm"), nextIp())),
    ];
  };

  const statements = async () => (await bench.backend.databaseStatements?.()) ?? 0;
  const blobsOps = async () => {
    await bench.blobs.settled();
    return bench.blobs.operations.length;
  };
  let lastStatements = await statements();
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
    const invocations = (await Promise.all(group.map((event) => perform(event, group.length > 1)))).flat();
    const end = Date.now();
    const [nowStatements, nowOps] = [await statements(), await blobsOps()];
    steps.push({
      at,
      end,
      tag: first.tag,
      invocations,
      statements: nowStatements - lastStatements,
      blobsOps: nowOps - lastOps,
    });
    [lastStatements, lastOps] = [nowStatements, nowOps];
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
  { visit, deploys, mails, without }: { visit: Visit; deploys: number; mails: number; without?: QuerySpan },
) {
  const own = steps.filter((step) => tags.includes(step.tag));
  const all = own.flatMap((step) => step.invocations);
  const kinds = ["sweep", "daily", "signup", "confirm page", "confirm button"] as const;
  const medianOf = (kind: Kind, from: readonly Invocation[]) =>
    median(from.filter((one) => one.kind === kind && !one.atOnce).map((one) => one.ms));
  // An invocation run beside others is billed at the median of its kind run alone: on Netlify it has an instance
  // of its own. Scheduled runs in the hours of traffic `without` this month are billed at the month's median sweep.
  const alone = new Map(kinds.map((kind) => [kind, medianOf(kind, all)]));
  const outside = (step: Step) => !without || step.at < without.from || step.at > without.to;
  const usualSweep = medianOf(
    "sweep",
    own.filter(outside).flatMap((step) => step.invocations),
  );
  const billedMs = (step: Step, one: Invocation) =>
    one.atOnce ? alone.get(one.kind)! : !outside(step) && one.kind === "sweep" ? usualSweep : one.ms;
  const functionMs = own.reduce(
    (sum, step) => sum + step.invocations.reduce((ms, one) => ms + billedMs(step, one), 0),
    0,
  );
  const count = (kind: Kind) => all.filter((one) => one.kind === kind).length;
  const signups = count("signup");
  const visits = signups;
  const scheduled = count("sweep") + count("daily");
  const meters: MonthMeters = {
    functionMs,
    requests: visits * visit.requests + all.length,
    bytes: visits * visit.bytes + all.reduce((sum, one) => sum + one.bytes, 0),
    databaseQueries: own.filter((step) => step.statements > 0).map(({ at, end }) => ({ from: at, to: end })),
    productionDeploys: deploys,
  };
  const credits = monthCredits(meters);
  return {
    ...credits,
    signups,
    visits,
    mails,
    confirmations: count("confirm button"),
    sweeps: count("sweep"),
    dailyPasses: count("daily"),
    meters: {
      ...credits.meters,
      functionInvocations: all.length,
      scheduledInvocations: scheduled,
      visitRequests: visits * visit.requests,
      databaseStatements: own.reduce((sum, step) => sum + step.statements, 0),
      blobsOperations: own.reduce((sum, step) => sum + step.blobsOps, 0),
      killed: all.filter((one) => one.killed).length,
      medianMs: Object.fromEntries(
        kinds.map((kind) => [kind, count(kind) ? Math.round(alone.get(kind)! * 10) / 10 : null]),
      ),
    },
  };
}

/** The three months' credits on one store, and the signups lost in them. */
export async function monthsOn(store: StoreKind, visit: Visit) {
  const idleBench = await startDeployment(store, { start: monthStart });
  await idleBench.backend.seedTo(idleListed);
  const idleSteps = await run(idleBench, schedule({ withTraffic: false }), `${store}, an idle month`);
  await idleBench.stop();

  const bench = await startDeployment(store, { start: monthStart });
  const events = schedule({ withTraffic: true });
  const steps = await run(bench, events, `${store}, a trickle and a viral day`);
  const mailsTo = (prefix: string) =>
    bench.smtp.deliveries.filter((delivery) => delivery.envelope.to.some((to) => to.startsWith(prefix))).length;
  const viralHours = {
    from: monthStart + viral.day * day + viral.from,
    // Until the last of its confirmations.
    to: monthStart + viral.day * day + viral.from + viral.lasts + hour,
  };
  const figures = {
    idleMonth: month(idleSteps, ["scheduled"], { visit, deploys: 0, mails: 0 }),
    trickleMonth: month(steps, ["scheduled", "trickle"], {
      visit,
      deploys: 0,
      mails: mailsTo("trickle"),
      without: viralHours,
    }),
    viralMonth: month(steps, ["scheduled", "trickle", "viral"], {
      visit,
      deploys: viral.deploys,
      mails: mailsTo("trickle") + mailsTo("viral"),
    }),
    lost: await lost(bench, events),
  };
  await bench.stop();
  return figures;
}

export type Months = Awaited<ReturnType<typeof monthsOn>>;

/** How each month was measured, for the report. */
export const method = {
  idleMonth: `every scheduled run of 30 days (8,640 sweeps, 30 daily passes) over ${idleListed.toLocaleString("en")} listed addresses`,
  trickleMonth:
    "the viral month's run without the viral day's own signups, confirmations and deploys; the sweeps of those hours billed at the month's median sweep",
  viralMonth: `every run of 30 days: the trickle, and on the 15th ${viral.signups.toLocaleString("en")} signups from noon to 18:00 UTC, ${atOnce} at a time, each billed at the median of its kind run alone; ${viral.deploys} production deploys`,
};
