import { readEnv, waitlistConfig } from "../config/env";
import { sendFoundersDigest } from "../waitlist/digest";
import { pruneUnconfirmed } from "../waitlist/prune";
import type { Waitlist } from "../waitlist/create-waitlist";
import { BlobsStore } from "../waitlist/stores/blobs-store";
import { log, netlifyDatabaseOn, netlifyWaitlist, owedMailNotes, type NetlifyStore } from "./netlify-waitlist";

/*
 * Netlify's two scheduled functions (they run on the published deploy only). Every five minutes, the confirmations
 * owed; once a day, the retention. On Netlify Blobs, the default, a sweep costs a few requests. On Netlify Database,
 * billed by the hour it is awake with any query waking it for at least five minutes (docs/netlify.md), the sweep
 * reads notes in the Blobs store first and wakes the database only when a confirmation is due; the day's pass wakes
 * it once.
 */

/** Scheduled functions stop at 30 s; a sweep starts no new batch after this, and the next one goes on. */
const budgetMs = 20_000;
/** Unconfirmed signups the day's pass removes at most; the next day goes on. */
const pruneLimit = 20_000;

type Totals = { sent: number; retrying: number; refused: number };

/**
 * Attempts at every confirmation that is due, a batch at a time while the budget lasts. On Netlify Database, whose
 * sweep wakes it only for a note, what the time left owed is noted as due at once, for the next sweep.
 */
async function sendOwed(waitlist: Waitlist<NetlifyStore>, started: number, clock: () => number): Promise<Totals> {
  const total = { sent: 0, retrying: 0, refused: 0 };
  for (;;) {
    const { sent, retrying, refused } = await waitlist.confirmations.sweep();
    total.sent += sent;
    total.retrying += retrying;
    total.refused += refused;
    // Done when a batch sent nothing new (all held, or failing for now), or time is short.
    if (sent + refused === 0) return total;
    if (clock() - started > budgetMs) {
      if (!(waitlist.store instanceof BlobsStore)) await owedMailNotes().note(new Date(started));
      return total;
    }
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
 * function that died while sending), with npm start's retry schedule and lease; then, on Netlify Blobs, the ledger
 * the founders' commands read brought up to date. On Netlify Database, nothing at all unless a note says a
 * confirmation is due by now.
 */
export async function sweep(clock: () => number = Date.now): Promise<Response> {
  const started = clock();
  const env = readEnv();
  if (await netlifyDatabaseOn(env)) {
    // Nothing can be sent without a mail server: the notes wait for SMTP_URL, and the database sleeps.
    if (!env.SMTP_URL) return new Response(null, { status: 204 });
    const notes = owedMailNotes(() => new Date(clock()));
    const due = await notes.due();
    if (due.length === 0) return new Response(null, { status: 204 });
    const waitlist = await netlifyWaitlist("waitlist-sweep", env);
    report("waitlist-sweep", await sendOwed(waitlist, started, clock));
    // sendOwed noted what its time left, and each attempt that failed again noted its own (onOwed); what a function
    // still holds is the day's pass's.
    await notes.clear(due);
    return new Response(null, { status: 204 });
  }
  const waitlist = await netlifyWaitlist("waitlist-sweep", env);
  const total = await sendOwed(waitlist, started, clock);
  report("waitlist-sweep", total, waitlist.store instanceof BlobsStore ? await waitlist.store.fold() : undefined);
  return new Response(null, { status: 204 });
}

/**
 * Once a day: the signups never confirmed within the retention removed (its days have day granularity), the
 * per-mailbox counts of days gone by dropped, and any confirmation still owed sent, such as one whose function died
 * before it could note it; on Netlify Blobs, then the ledger.
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
  const folded = waitlist.store instanceof BlobsStore ? await waitlist.store.fold() : undefined;
  report("waitlist-daily", total, folded);
  return new Response(null, { status: 204 });
}
