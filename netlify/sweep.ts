import { readEnv, waitlistConfig } from "../config/env";
import { sendFoundersDigest } from "../waitlist/digest";
import { pruneUnconfirmed } from "../waitlist/prune";
import type { Waitlist } from "../waitlist/create-waitlist";
import type { BlobsStore } from "../waitlist/stores/blobs-store";
import { log, netlifyWaitlist } from "./netlify-waitlist";

/*
 * Netlify's two scheduled functions (they run on the published deploy only). Every five minutes, the confirmations
 * owed; once a day, the retention. On Netlify Blobs a sweep costs a few requests.
 */

/** Scheduled functions stop at 30 s; a sweep starts no new batch after this, and the next one goes on. */
const budgetMs = 20_000;
/** Unconfirmed signups the day's pass removes at most; the next day goes on. */
const pruneLimit = 20_000;

type Totals = { sent: number; retrying: number; refused: number };

/** Attempts at every confirmation that is due, a batch at a time while the budget lasts; the next sweep goes on. */
async function sendOwed(waitlist: Waitlist<BlobsStore>, started: number, clock: () => number): Promise<Totals> {
  const total = { sent: 0, retrying: 0, refused: 0 };
  for (;;) {
    const { sent, retrying, refused } = await waitlist.confirmations.sweep();
    total.sent += sent;
    total.retrying += retrying;
    total.refused += refused;
    // Done when a batch sent nothing new (all held, or failing for now), or time is short.
    if (sent + refused === 0) return total;
    if (clock() - started > budgetMs) return total;
  }
}

const report = (name: string, total: Totals, folded?: number) => {
  if (total.sent + total.retrying + total.refused + (folded ?? 0) === 0) return;
  log(name)(
    `confirmations: ${total.sent} sent, ${total.retrying} to retry, ${total.refused} refused for good` +
      (folded === undefined ? "" : `; ${folded} ledger rows written`),
  );
};

/**
 * Every five minutes: an attempt at every confirmation that is due (a failure that may pass, or one held by a
 * function that died while sending), with npm start's retry schedule and lease; then the ledger the founders'
 * commands read brought up to date.
 */
export async function sweep(clock: () => number = Date.now): Promise<Response> {
  const started = clock();
  const env = readEnv();
  const waitlist = await netlifyWaitlist("waitlist-sweep", env);
  const total = await sendOwed(waitlist, started, clock);
  report("waitlist-sweep", total, await waitlist.store.fold());
  return new Response(null, { status: 204 });
}

/**
 * Once a day: the signups never confirmed within the retention removed (its days have day granularity), the
 * per-mailbox counts of days gone by dropped, and any confirmation still owed sent; then the ledger.
 */
export async function daily(clock: () => number = Date.now): Promise<Response> {
  const started = clock();
  const env = readEnv();
  const waitlist = await netlifyWaitlist("waitlist-daily", env);
  const total = await sendOwed(waitlist, started, clock);
  const { addresses } = await pruneUnconfirmed(waitlist.store, {
    now: new Date(clock()),
    limit: pruneLimit,
    deadline: started + budgetMs,
    clock,
  });
  if (addresses.length > 0) log("waitlist-daily")(`removed ${addresses.length} signup(s) never confirmed in time`);
  // The founders' digest of yesterday, when FOUNDERS_DIGEST_TO asks for it: once, whatever the number of instances.
  const { foundersDigestTo: to, siteUrl, contactEmail } = waitlistConfig(env);
  await sendFoundersDigest({
    store: waitlist.store,
    mailer: waitlist.mailer,
    to,
    now: new Date(clock()),
    site: { siteUrl, contactEmail },
  })
    .then((sent) => sent && log("waitlist-daily")(`sent the founders' digest to ${to.length} address(es)`))
    .catch((error: Error) => log("waitlist-daily")(`could not send the founders' digest: ${error.message}`));
  report("waitlist-daily", total, await waitlist.store.fold());
  return new Response(null, { status: 204 });
}
