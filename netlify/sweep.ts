import { readEnv } from "../config/env";
import { BlobsStore } from "../waitlist/stores/blobs-store";
import { pruneUnconfirmed } from "../waitlist/prune";
import { log, netlifyWaitlist } from "./netlify-waitlist";

/** Scheduled functions stop at 30 s; the sweep starts no new batch after this, and the next sweep goes on. */
const budgetMs = 20_000;
/** Unconfirmed signups a sweep removes at most: 288 sweeps a day remove 288,000. */
const pruneLimit = 1000;

/**
 * The scheduled sweep: an attempt at every confirmation that is due (a
 * failure that may pass, or one held by a function that died while sending),
 * with npm start's retry schedule and lease, a batch at a time while the
 * budget lasts; the signups never confirmed within the retention removed;
 * then, on Netlify Blobs, the ledger brought up to date.
 */
export async function sweep(clock: () => number = Date.now): Promise<Response> {
  const started = clock();
  const waitlist = await netlifyWaitlist("waitlist-sweep", readEnv());
  const total = { sent: 0, retrying: 0, refused: 0 };
  for (;;) {
    const { sent, retrying, refused } = await waitlist.confirmations.sweep();
    total.sent += sent;
    total.retrying += retrying;
    total.refused += refused;
    // Done when a batch sent nothing new (all held, or failing for now), or time is short.
    if (sent + refused === 0 || clock() - started > budgetMs) break;
  }
  // Addresses never confirmed go once the days the policy names are over, as many as the budget allows; the
  // next sweep goes on. Before the fold, which then clears the notes their removal leaves.
  const { addresses } = await pruneUnconfirmed(waitlist.store, {
    now: new Date(clock()),
    limit: pruneLimit,
    deadline: started + budgetMs,
    clock,
  });
  if (addresses.length > 0) log("waitlist-sweep")(`removed ${addresses.length} signup(s) never confirmed in time`);
  // The Blobs store's ledger, which the founders' commands read; Netlify Database has none to keep.
  const folded = waitlist.store instanceof BlobsStore ? await waitlist.store.fold() : 0;
  if (total.sent + total.retrying + total.refused + folded > 0) {
    log("waitlist-sweep")(
      `confirmations: ${total.sent} sent, ${total.retrying} to retry, ${total.refused} refused for good` +
        (waitlist.store instanceof BlobsStore ? `; ${folded} ledger rows written` : ""),
    );
  }
  return new Response(null, { status: 204 });
}
