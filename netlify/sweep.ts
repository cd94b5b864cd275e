import { readEnv, waitlistConfig } from "../config/env";
import { sendFoundersDigest } from "../waitlist/reports/daily-digest";
import { redactAddresses } from "../waitlist/mail/redact";
import { pruneUnconfirmed } from "../waitlist/prune";
import { eventsReported } from "../waitlist/reports/mail-figures";
import type { Waitlist } from "../waitlist/create-waitlist";
import type { SweepResult } from "../waitlist/mail/confirmations";
import type { BlobsStore } from "../waitlist/stores/blobs-store";
import { log, netlifyWaitlist } from "./netlify-waitlist";
import { askForDrain } from "./drain-start";
import { untilStop } from "./run-limit";

/*
 * Netlify's two scheduled functions (they run on the published deploy only): every five minutes, the confirmations
 * owed, the signups whose retention is over and the ledger; once a day, the founders' digest first, then the same.
 * Netlify stops a scheduled run at 30 s, and every Blobs operation is a round trip of tens of milliseconds: each duty
 * starts no new batch past its own point in the run, and the retention and the ledger start no Blobs operation past
 * the run's hard stop (run-limit.ts), so that a run ends within 30 s whatever came before it (a viral day, a mail
 * outage, a day of pruning), and the next run, five minutes on, goes on where it stopped.
 */

/**
 * Milliseconds into a run past which each duty starts no new batch; a batch under way, and the fold's clean-up of
 * leave notes, end within seconds, but not always within the 30 s: at full scale, a batch of 50 removals after a day
 * of 100,000 signups took 22 s (every step waits for its slowest round trip; 1 in 500 is a 503 retried after 5 s),
 * and a page of the ledger after a mail outage ran to 28.7 s. So the retention and the ledger also stop at `stop`:
 * past it they start no Blobs operation, as if the run died there, which their steps leave for the next run to
 * finish (run-limit.ts); a round trip under way ends by 28 s, with a retry. Sending has no hard stop: an e-mail sent
 * must be marked sent, or it would be sent again.
 * Sending starts no message past its point, and reads while it sends (Confirmations.sendDue): a sweep sends 400 or
 * so in its 15 s at 32 at once (200 to 300 at 20), fewer when most of the backlog is not due yet (after a mail
 * outage, retried hourly).
 */
export const runBudget = {
  // The retention first, as the day's pass has it, for a batch of removals under way can take seconds (a 503 is
  // retried after 5 s now and then): pruning until 17 s, after the mail, let 39 sweeps of the days after a
  // 100,000-signup day run past 30 s. Then the backlog of mail, then the ledger.
  sweep: { prune: 8_000, send: 15_000, fold: 19_000, stop: 22_000 },
  // The day's pass sends its digest first; the sweeps every five minutes carry the backlog of mail. It stops
  // earlier than a sweep, to end within 25 s: a round trip begun just before the stop and answered 503 is retried
  // after 5 s (with the stop at 22 s, a pass after a 100,000-signup day ended at 25.6 s).
  daily: { prune: 10_000, send: 14_000, fold: 17_000, stop: 19_500 },
} as const;

/**
 * Signups a sweep finds and removes in one go (the day's pass takes prune.ts's 250, within the 30 s the bench
 * measured). A sweep's batch of 250 took 20 to 30 s at Netlify's speed (finding them among the hour's notes 8 to
 * 22 s, removing them 11 to 16 s: every step waits for its slowest round trip, and 1 in 500 is a 503 retried after
 * 5 s), past the run's deadlines and now and then its 30 s.
 */
const sweepBatchSize = 50;

/**
 * The signups never confirmed within the retention removed (their days have day granularity), starting no batch
 * past `until`; with `daysGoneBy`, the day's pass, the mailbox counts and leavers' digests of days gone by first.
 */
async function prune(
  waitlist: Waitlist<BlobsStore>,
  name: string,
  {
    until,
    stopAt,
    clock,
    daysGoneBy,
    batchSize,
  }: { until: number; stopAt: number; clock: () => number; daysGoneBy: boolean; batchSize?: number },
) {
  const now = new Date(clock());
  const pruned = await untilStop(stopAt, clock, () =>
    pruneUnconfirmed(waitlist.store, { now, deadline: until, clock, daysGoneBy, batchSize }),
  );
  if (pruned === "stopped") log(name)("the retention stopped at the run's hard stop; the next run goes on");
  else {
    if (pruned.addresses.length > 0) log(name)(`removed ${pruned.addresses.length} signup(s) never confirmed in time`);
    if (pruned.afterWave.length > 0) log(name)(`removed ${pruned.afterWave.length} entries past their wave`);
    if (pruned.undeliverable.length > 0) {
      log(name)(`removed ${pruned.undeliverable.length} undeliverable entries past their days after the bounce`);
    }
  }
}

/** The ledger brought up to date, starting no page past `until` and no operation past `stopAt`: rows written. */
async function fold(
  waitlist: Waitlist<BlobsStore>,
  name: string,
  { until, stopAt, clock, tidy }: { until: number; stopAt: number; clock: () => number; tidy?: boolean },
) {
  const folded = await untilStop(stopAt, clock, () => waitlist.store.fold({ deadline: until, tidy }));
  if (folded !== "stopped") return folded;
  log(name)("the ledger stopped at the run's hard stop; the next run goes on");
  return 0;
}

const report = (name: string, total: SweepResult, folded: number) => {
  if (total.sent + total.retrying + total.refused + folded === 0) return;
  log(name)(
    `confirmations: ${total.sent} sent, ${total.retrying} to retry, ${total.refused} refused for good; ` +
      `${folded} ledger rows written`,
  );
};

/**
 * Every five minutes: the signups whose retention ended removed, so that a day of many signups is pruned across the
 * day's sweeps, not by one run; an attempt at every confirmation that is due (a failure that may pass, or one held
 * by a function that died while sending), with npm start's retry schedule and lease; then the ledger the
 * founders' commands read brought up to date.
 */
export async function sweep(clock: () => number = Date.now): Promise<Response> {
  const started = clock();
  const { send, prune: pruneBy, fold: foldBy, stop } = runBudget.sweep;
  const env = readEnv();
  const waitlist = await netlifyWaitlist("waitlist-sweep", env);
  await prune(waitlist, "waitlist-sweep", {
    until: started + pruneBy,
    stopAt: started + stop,
    clock,
    daysGoneBy: false,
    batchSize: sweepBatchSize,
  });
  const total = await waitlist.confirmations.sendDue(started + send);
  // More due than a sweep's seconds could send (an outage over, a backlog): a drain with a function's minute does.
  if (total.more) await askForDrain(waitlist.store, env, waitlist.linkSecret, log("waitlist-sweep"));
  const folded = await fold(waitlist, "waitlist-sweep", {
    until: started + foldBy,
    stopAt: started + stop,
    clock,
    tidy: false,
  });
  report("waitlist-sweep", total, folded);
  return new Response(null, { status: 204 });
}

/**
 * Once a day: the founders' digest of yesterday first (once, whatever the number of instances), then the retention
 * (the signups never confirmed in time, the per-mailbox counts and leavers' digests of days gone by), anything still
 * owed, and the ledger.
 */
export async function daily(clock: () => number = Date.now): Promise<Response> {
  const started = clock();
  const env = readEnv();
  const waitlist = await netlifyWaitlist("waitlist-daily", env);
  const { foundersDigestTo: to, siteUrl, contactEmail, mailEvents } = waitlistConfig(env);
  await sendFoundersDigest({
    store: waitlist.store,
    mailer: waitlist.mailer,
    to,
    now: new Date(clock()),
    site: { siteUrl, contactEmail },
    pace: waitlist.pace,
    reported: eventsReported(mailEvents),
  })
    .then((sent) => sent && log("waitlist-daily")(`sent the founders' digest to ${to.length} address(es)`))
    .catch((error: Error) =>
      log("waitlist-daily")(`could not send the founders' digest: ${redactAddresses(error.message)}`),
    );
  const { prune: pruneBy, send, fold: foldBy, stop } = runBudget.daily;
  const stopAt = started + stop;
  await prune(waitlist, "waitlist-daily", { until: started + pruneBy, stopAt, clock, daysGoneBy: true });
  const total = await waitlist.confirmations.sendDue(started + send);
  if (total.more) await askForDrain(waitlist.store, env, waitlist.linkSecret, log("waitlist-daily"));
  report("waitlist-daily", total, await fold(waitlist, "waitlist-daily", { until: started + foldBy, stopAt, clock }));
  return new Response(null, { status: 204 });
}
