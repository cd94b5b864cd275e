// What a month of the waitlist costs in Netlify credits: the bundled functions driven through a simulated month of
// traffic (every scheduled run, every signup with its visits to /, every confirmation), each invocation's run time
// (on the simulated clock, at Netlify's speed: latency.ts) and reply measured, and Netlify's meters applied
// (credits.ts), with the scheduled runs counted as web requests and without.
//
// Two months are run, each on a deployment of its own:
// - idle: 30 days without a signup over the 13,000 addresses the viral month leaves, every scheduled run of it;
// - viral: 30 days of 100 signups a day from 08:00 to midnight UTC, 3 in 5 confirming within the hour, and on the
//   15th, 10,000 more from noon to 18:00, with 4 production deploys; on the 20th the founders let in a wave of 1,000,
//   and on the 22nd announce the Privacy Policy's change to every member (founders.ts). The trickle month is that
//   run without the viral day's own signups, confirmations, drains and deploys, and without the founders' mail's
//   bounces and complaints: its invocations are tagged, and those are left out.
// The mail goes through a provider as strict as SES in production (mail.ts): 2 % of addresses bounce (and so never
// confirm), 0.1 % complain, each posted to the site's SES route a minute later; the drains the functions start and
// those posts are invocations of the month like any other (a web request and its run time).
// Then the viral month's deployment goes on, without traffic, to 32 days after its viral day: every daily pass after
// that day, and whether the 4,000 of it who never confirmed are gone 30 days on (daily.ts).
// `scale` multiplies the signups (and the idle list), not the days: every scheduled run is run at any scale. The
// months' events, and the figures they are made of, are month-schedule.ts's.
import { confirmLinks } from "../../test/support/smtp";
import { type MonthMeters, scheduledAsRequests } from "./credits";
import { dailyPassesAfter } from "./daily";
import { type Deployment, median, progress, replyBytes, startDeployment } from "./deployment";
import { runFounders, type FoundersRun } from "./founders";
import { sumProviderFigures } from "./mail";
import {
  atOnce,
  day,
  defaultVisitsPerSignup,
  foundersMail,
  hour,
  idleListed,
  monthDays,
  monthStart,
  schedule,
  viral,
  type Event,
  type Tag,
} from "./month-schedule";
import type { Visit } from "./visit";

export { atOnce, defaultVisitsPerSignup, goals, viral } from "./month-schedule";
type Kind = "sweep" | "daily" | "signup" | "confirm page" | "confirm button" | "drain" | "mail event";

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
async function run(bench: Deployment, events: readonly Event[], label: string) {
  const { advanceTo, smtp, invoke, post, opened, pressed, nextIp } = bench;
  const delivered = new Map<string, string>();
  let indexed = 0;
  /** The confirm link of the mail to `email`. */
  const linkTo = (email: string) => {
    for (; indexed < smtp.deliveries.length; indexed++) {
      const delivery = smtp.deliveries[indexed]!;
      const link = confirmLinks(delivery.mail).text;
      if (link) for (const to of delivery.envelope.to) delivered.set(to, link);
    }
    return delivered.get(email);
  };
  // The simulated clock's time: Netlify's speed (latency.ts). A killed invocation is billed its limit.
  const timed = async (kind: Kind, call: () => Promise<Response | "killed">) => {
    const began = Date.now();
    const reply = await call();
    const ms = Date.now() - began;
    if (reply === "killed") return { kind, ms, bytes: 0, killed: true };
    return { kind, ms, bytes: await replyBytes(reply), killed: false };
  };
  /** The founders' commands, under way beside the month's events. */
  const founders: Promise<FoundersRun>[] = [];
  const perform = async (event: Event): Promise<Invocation[]> => {
    if (event.tag === "scheduled") return [await timed(event.kind, bench[event.kind])];
    if (event.kind === "founders") {
      progress(`${label}: npm run waitlist -- ${event.args.join(" ")} --netlify`);
      founders.push(runFounders(bench, event.args));
      return [];
    }
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
    await advanceTo(first.at);
    const at = Date.now();
    const invocations = (await Promise.all(group.map((event) => perform(event)))).flat();
    const end = Date.now();
    const nowOps = await blobsOps();
    steps.push({ at, end, tag: first.tag, invocations, blobsOps: nowOps - lastOps });
    lastOps = nowOps;
  }
  const foundersRuns = await Promise.all(founders);
  await bench.settled();
  steps.push(...siteCallSteps(bench, events));
  const nowOps = await blobsOps();
  if (steps.length > 0) steps.at(-1)!.blobsOps += nowOps - lastOps;
  return { steps, founders: foundersRuns };
}

/**
 * The calls of the site's functions the functions and the provider made (drains, bounces and complaints), as steps of
 * their own: a mail event is of the signup it names (trickle or viral; the founders' when they name neither), a drain
 * of the viral day in its hours and of the trickle otherwise. Their Blobs operations are counted in the steps they
 * ran beside.
 */
function siteCallSteps(bench: Deployment, events: readonly Event[]): Step[] {
  const viralTimes = events.filter((event) => event.tag === "viral").map((event) => event.at);
  const inViralHours = (at: number) =>
    viralTimes.length > 0 && at >= Math.min(...viralTimes) && at <= Math.max(...viralTimes);
  const tagOf = (call: Deployment["siteCalls"][number]): Tag => {
    if (call.kind === "drain") return inViralHours(call.at) ? "viral" : "trickle";
    const address = call.addresses[0] ?? "";
    return address.startsWith("viral") ? "viral" : address.startsWith("trickle") ? "trickle" : "founders";
  };
  return bench.siteCalls.map((call) => ({
    at: call.at,
    end: call.at + call.ms,
    tag: tagOf(call),
    invocations: [{ kind: call.kind, ms: call.ms, bytes: call.bytes, killed: call.killed }],
    blobsOps: 0,
  }));
}

/**
 * Signups lost: not stored, not sent their confirmation exactly once, or confirmed by their link and not kept as
 * confirmed; a signup the site removed on its own complaint (as a leave) is not lost. And the signups whose
 * confirmation the site refused for good for a throttle or a quota: none should be (a throttle or a quota holds the
 * mail, it refuses nobody).
 */
async function lost(bench: Deployment, events: readonly Event[]) {
  // The ledger the founders read (on Blobs) is brought up to date by a sweep: one after the month, not counted.
  await bench.sweep();
  const all = await bench.store.all();
  const rows = new Map(all.map((row) => [row.email, row]));
  const confirmations = new Map<string, number>();
  for (const delivery of bench.smtp.deliveries) {
    if (!confirmLinks(delivery.mail).text) continue;
    for (const to of delivery.envelope.to) confirmations.set(to, (confirmations.get(to) ?? 0) + 1);
  }
  const complained = new Set(bench.complainedOf());
  const lostSignups = events.filter(
    (event) =>
      event.kind !== "founders" &&
      event.tag !== "scheduled" &&
      !complained.has(event.email) &&
      ((event.kind === "signup" && (!rows.has(event.email) || confirmations.get(event.email) !== 1)) ||
        (event.kind === "confirm" && !rows.get(event.email)?.confirmedAt)),
  ).length;
  const refusedForLimits = all.filter(
    (row) => row.state === "refused" && /throttl|quota|rate/i.test(row.confirmationError ?? ""),
  ).length;
  return { lost: lostSignups, refusedForLimits };
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
  const kinds = ["sweep", "daily", "signup", "confirm page", "confirm button", "drain", "mail event"] as const;
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
  const idle = await idleMonthOver(Math.round(idleListed * scale), { visit, visitsPerSignup, label: "an idle month" });

  const bench = await startDeployment({ start: monthStart });
  const events = schedule({ withTraffic: true, scale });
  const { steps, founders } = await run(bench, events, "a trickle and a viral day");
  const mailsTo = (prefix: string, onlyConfirmations = false) =>
    bench.smtp.deliveries.filter(
      (delivery) =>
        delivery.envelope.to.some((to) => to.startsWith(prefix)) &&
        (!onlyConfirmations || confirmLinks(delivery.mail).text !== ""),
    ).length;
  const viralDay = monthStart + viral.day * day;
  const viralHours = {
    from: viralDay + viral.from,
    // Until the last of its confirmations.
    to: viralDay + viral.from + viral.lasts + hour,
  };
  const priced = { visit, visitsPerSignup };
  const { lost: lostSignups, refusedForLimits } = await lost(bench, events);
  const figures = {
    idleMonth: idle.month,
    trickleMonth: month(steps, ["scheduled", "trickle"], {
      ...priced,
      deploys: 0,
      mails: mailsTo("trickle", true),
      without: viralHours,
    }),
    viralMonth: month(steps, ["scheduled", "trickle", "viral", "founders"], {
      ...priced,
      deploys: viral.deploys,
      mails: mailsTo("trickle") + mailsTo("viral"),
    }),
    lost: lostSignups,
    founders,
  };
  // The viral month's mail as the provider saw it, before the days after it.
  const viralMail = { ...bench.providerFigures(), refusedForLimits };
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
  // The idle month mails nobody but the founders: nobody to refuse.
  const provider = sumProviderFigures({ ...idle.provider, refusedForGood: 0 }, await bench.providerReport());
  await bench.stop();
  return { ...figures, afterViralMonth, viralMail, provider };
}

export type Months = Awaited<ReturnType<typeof months>>;

/**
 * An idle month (every scheduled run of 30 days, no signup) over `listed` addresses, mailed and confirmed long ago:
 * its credits, and its mail as the provider saw it (the founders' digests).
 */
export async function idleMonthOver(
  listed: number,
  { visit, visitsPerSignup, label }: { visit: Visit; visitsPerSignup: number; label: string },
) {
  const bench = await startDeployment({ start: monthStart });
  await bench.backend.seedTo(listed);
  const { steps } = await run(bench, schedule({ withTraffic: false, scale: 1 }), label);
  const provider = bench.providerFigures();
  await bench.stop();
  return {
    month: { listed, ...month(steps, ["scheduled"], { visit, visitsPerSignup, deploys: 0, mails: 0 }) },
    provider,
  };
}

/** How each month was measured, for the report. */
export const method = {
  idleMonth: `every scheduled run of 30 days (8,640 sweeps, 30 daily passes) over ${idleListed.toLocaleString("en")} listed addresses`,
  trickleMonth:
    "the viral month's run without the viral day's own signups, confirmations and deploys; the sweeps of those hours billed at the month's median sweep",
  viralMonth: `every run of 30 days: the trickle, and on the 15th ${viral.signups.toLocaleString("en")} signups from noon to 18:00 UTC, ${atOnce} at a time, each billed its own time; ${viral.deploys} production deploys; a let-in wave of ${foundersMail.letIn.count.toLocaleString("en")} on the ${foundersMail.letIn.day + 1}th and an announcement to every member on the ${foundersMail.announce.day + 1}nd, from the founders' machine (no credits); the drains the functions started and the bounces and complaints the provider posted, each a web request and its run time`,
  idleMonthAt100k: "the idle month over 100,000 listed addresses",
};
