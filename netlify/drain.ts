import { timingSafeEqual } from "node:crypto";
import { readEnv } from "../config/env";
import { drainHeader, drainSetting, drainToken, startDrain, type DrainLease } from "./drain-start";
import { log, netlifyWaitlist } from "./netlify-waitlist";
import type { FunctionContext } from "./serve-endpoint";

/*
 * A backlog of mail, sent at the provider's pace by a function with the time for it. The sweep has 30 s every five
 * minutes, and a signup's function waits a moment at most for its own e-mail's start (netlify-waitlist.ts); when
 * either leaves more due than it could send (a mail outage over, a viral minute past the provider's rate), it starts
 * a drain: this function, which answers at once and sends for 45 s of its 60, then starts the next while more is due.
 * One runs at a time, under a lease in the store (drain-start.ts): one asked for while another runs is started by it
 * as it ends. The pace every sender shares (waitlist/mail/pace.ts) keeps it and the signups within the provider's limits.
 * Only the site's own functions can start one: the request carries a token derived from the site's secret; any other
 * is answered 404, as a path that is not there.
 */

/** A drain starts no message past this far into its run: the rest is the next drain's, within Netlify's 60 s. */
const sendForMs = 45_000;
/** A drain's lease: past Netlify's 60 s, a drain that was stopped holds it no longer. */
const leaseMs = 60_000;

const sameToken = (given: string | null, token: string) =>
  given !== null && given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token));

/** The drain function: 202 at once, then the mail due sent for 45 s, and the next drain started if more is due. */
export async function drain(request: Request, context: FunctionContext, clock: () => number = Date.now) {
  const started = clock();
  const env = readEnv();
  const waitlist = await netlifyWaitlist("waitlist-drain", env);
  if (request.method !== "POST" || !sameToken(request.headers.get(drainHeader), drainToken(waitlist.linkSecret))) {
    return new Response("Not found", { status: 404 });
  }
  const { store, confirmations, linkSecret } = waitlist;
  let mine = false;
  await store.swapSetting<DrainLease>(drainSetting, (found) => {
    mine = !(found && found.until > started);
    return mine ? { until: started + leaseMs, wanted: false } : undefined;
  });
  // Another drain runs: it has marked this asking, and starts the next as it ends.
  if (!mine) return new Response(null, { status: 202 });
  context.waitUntil(
    (async () => {
      let more = true;
      try {
        const result = await confirmations.sendDue(started + sendForMs);
        more = result.more;
        log("waitlist-drain")(
          `confirmations: ${result.sent} sent, ${result.retrying} to retry, ${result.refused} refused for good${result.held > 0 ? ", the rest held by the provider" : ""}`,
        );
      } finally {
        let wanted = false;
        await store.swapSetting<DrainLease>(drainSetting, (found) => {
          wanted = found?.wanted ?? false;
          return { until: 0, wanted: false };
        });
        if (more || wanted) await startDrain(env, linkSecret, log("waitlist-drain"));
      }
    })(),
  );
  return new Response(null, { status: 202 });
}
