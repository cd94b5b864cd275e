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
// `scale` multiplies the signups (and the idle list), not the days: every scheduled run is run at any scale.
// The month's traffic is month-traffic.ts; running it on a deployment, month-run.ts.
import { confirmLinks } from "../../test/support/smtp";
import { type MonthMeters, scheduledAsRequests } from "./credits";
import { dailyPassesAfter } from "./daily";
import { median, startDeployment } from "./deployment";
import { sumProviderFigures } from "./mail";
import { atOnce, lost, run, type Invocation, type Kind, type Step } from "./month-run";
import { day, foundersMail, hour, idleListed, monthDays, monthStart, schedule, viral, type Tag } from "./month-traffic";
import type { Visit } from "./visit";

/** Visits to / for each signup, unless --visits-per-signup says otherwise: a landing page converts about 1 in 5. */
export const defaultVisitsPerSignup = 5;
/** The goals of the store a new site gets, in credits a month: room under the Free plan's 300. */
export const goals = { idleMonth: 10, viralMonth: 250 } as const;

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
