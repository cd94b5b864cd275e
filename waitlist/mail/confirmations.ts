import { maskEmail } from "../email-address";
import { redactAddresses } from "./redact";
import type { Mailer } from "./mailer";
import { paceWait, pacedRate, unlimitedPace, type MailPace } from "./pace";
import { confirmationLane } from "./confirmation-lane";
import { createSender } from "./sender";
import { askAgainAfterMs, retryDelaysMs as retrySchedule } from "../signup-life/rules";
import type { WaitlistSite } from "../site-settings";
import type { ConfirmationQueue, MailBookkeeping, WaitlistStore } from "../stores/store";
import type { OwedConfirmation } from "../signup-life/types";

export interface ConfirmationOptions extends WaitlistSite {
  store: WaitlistStore & ConfirmationQueue & Pick<MailBookkeeping, "suppressedUntil" | "suppress">;
  mailer: Mailer;
  /** What each message's leave link is signed with (tokens.ts). */
  linkSecret: string;
  /** Waits before each retry after a failure that may pass; the last one repeats. */
  retryDelaysMs?: readonly number[];
  /** How long one attempt holds an address before another sender may take it over. */
  leaseMs?: number;
  /** How often the running server looks for owed confirmations (start()). */
  sweepMs?: number;
  /**
   * The one pace every sender keeps (pace.ts): the provider's rate, connections and daily limit, and its holds. The
   * outbox folder has none.
   */
  pace?: MailPace;
  /** How long a new signup's own first attempt may wait for its start; past it, the message is left to `backlog`. */
  soonWaitMs?: number;
  /** Called when a new signup's own e-mail was left owed for want of a near start: a sender with time is needed. */
  backlog?: () => Promise<void>;
  /** Confirmation e-mails one mailbox gets per UTC day at most, whatever the spelling (mailbox.ts). */
  mailboxDailyMails?: number;
  log?: (line: string) => void;
  /** What time it is: the real clock, or a simulation's (the Netlify bench runs five minutes in seconds). */
  clock?: () => Date;
  /** Waits out a short hold of the provider's (sendDue); a test's clock moves instead. */
  wait?: (ms: number) => Promise<void>;
}

/** Owed confirmations one sweep takes on; the next sweep takes the rest. */
const sweepBatch = 100;
/** How long resend-pending waits at a time for a start the pace or a held connection keeps from it. */
const waitForStartMs = 5_000;
/** A signup's own e-mail held no longer than this (not started in its moment, a throttle) is left to `backlog`. */
const backlogHoldMs = 60_000;
/** One attempt's time at Netlify's speed, about: a message (0.5 s, now and then 3) and the store's round trips. */
const attemptMs = 2_000;
/** How long one attempt holds an address before another sender may take it over, unless told. */
export const defaultLeaseMs = 120_000;

/** What one attempt came to. */
export type Attempt =
  | { outcome: "sent" }
  /** Another sender holds it, or it was sent or failed meanwhile. */
  | { outcome: "not-ours" }
  /** Failed for now; due again later. */
  | { outcome: "retry"; reason: string }
  /** Not tried: the provider asked every sender to wait (a throttle, a quota, the server down), or no start was near. */
  | { outcome: "held"; until: number; reason: string; hold?: string }
  /** Refused for good by the mail server; no more attempts. */
  | { outcome: "refused"; reason: string };

/** Counts one attempt's outcome into a sweep's result. */
function tally(result: SweepResult, done: Attempt | undefined) {
  if (done?.outcome === "sent") result.sent++;
  else if (done?.outcome === "retry") result.retrying++;
  else if (done?.outcome === "refused") result.refused++;
  else if (done?.outcome === "held") result.held++;
}

/**
 * Sends each stored address exactly one confirmation (one more, a day or more
 * later, to one that signs up again without having confirmed; see
 * askAgainSoon). The signup is stored and answered first; a first attempt
 * follows at once. Everything owed after
 * that (a failure that may pass, or a hold left by a server that died while
 * sending) is picked up by the running server's sweep, on a schedule, with
 * backoff; an address the mail server refuses for good is marked failed and
 * left alone.
 */
export function createConfirmations({
  store,
  mailer,
  linkSecret,
  siteUrl,
  contactEmail,
  retryDelaysMs = retrySchedule,
  leaseMs = defaultLeaseMs,
  sweepMs = 30_000,
  pace = unlimitedPace,
  soonWaitMs,
  backlog,
  mailboxDailyMails = 3,
  log = (line) => console.error(line),
  clock = () => new Date(),
  wait = paceWait,
}: ConfirmationOptions) {
  const inFlight = new Set<Promise<unknown>>();

  /** The mail's one sender (sender.ts): the confirmation says whom and what, the sender does the rest. */
  const sender = createSender({ store, mailer, pace, secret: linkSecret, clock, wait });

  const lane = (claimed: boolean) =>
    confirmationLane(
      { store, linkSecret, siteUrl, contactEmail, leaseMs, mailboxDailyMails, retryDelaysMs, log, clock },
      claimed,
    );

  /** One attempt at `owed`'s confirmation, in the sender's words reduced to what a sweep counts. */
  async function deliver(
    owed: OwedConfirmation,
    {
      claimed = false,
      probe = false,
      takeBy,
      startBy = Infinity,
    }: { claimed?: boolean; probe?: boolean; takeBy?: number; startBy?: number } = {},
  ): Promise<Attempt | undefined> {
    const done = await sender.send(lane(claimed), owed, { probe, takeBy, startBy });
    switch (done.outcome) {
      case "sent":
      case "not-ours":
      case "held":
        return done;
      case "late":
        return undefined;
      case "retry":
      case "unknown":
        return { outcome: "retry", reason: done.reason };
      default:
        return { outcome: "refused", reason: done.reason };
    }
  }

  // Attempts under way at once: enough to keep the provider's rate, each of them the store's round trips around its
  // message, but not so many that a burst starves the signup endpoint that acknowledges them (the rest wait here, in
  // order). The pace holds their messages to the provider's connections. One attempt per connection kept a drain on
  // Netlify under 6 messages a second against SES's 14: each held its connection for the claim, the reads and the
  // writes, 1.7 s, of which the message was 0.5.
  const sendsAtOnce = Math.min(
    32,
    Math.max(pace.limits.connections, Math.ceil((pacedRate(pace.limits.ratePerSecond) * attemptMs) / 1000)),
  );
  let active = 0;
  let closed = false;
  const waiting: ((granted: boolean) => void)[] = [];
  /** Runs `work` in a free slot; undefined, without running it, once the sender is closed. */
  async function withSlot<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (closed) return undefined;
    if (active < sendsAtOnce) active++;
    // A finished send hands its slot over; close() turns the waiters away.
    else if (!(await new Promise<boolean>((resolve) => waiting.push(resolve)))) return undefined;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next(true);
      else active--;
    }
  }

  /**
   * An attempt in a slot, tracked for idle() and close(); a store error is logged, never thrown. With `startBy` (ms),
   * none once the slot comes later than that: the address stays due, for the next sweep.
   */
  function attempt(
    owed: OwedConfirmation,
    startBy = Infinity,
    options: Parameters<typeof deliver>[1] = {},
  ): Promise<Attempt | undefined> {
    const work = withSlot(async () =>
      clock().getTime() > startBy ? undefined : deliver(owed, { ...options, startBy }),
    ).catch((error: Error) => {
      log(
        `confirmation to ${maskEmail(owed.email)} could not be recorded: ${redactAddresses(error.message, owed.email)}`,
      );
      return undefined;
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return work;
  }

  /**
   * The first attempt for a newly stored address, on the next turn; resolves once it is done, and never throws.
   * `claimed`: its record was made held by this sender (NewSignup.claimFor).
   */
  function sendSoon(owed: OwedConfirmation, { claimed = false } = {}): Promise<void> {
    return new Promise((resolve) =>
      setImmediate(
        () =>
          // Its start within soonWaitMs of now, the wait for a free connection of this sender's included.
          void attempt(owed, Infinity, {
            claimed,
            takeBy: soonWaitMs === undefined ? undefined : clock().getTime() + soonWaitMs,
          })
            .then((done) =>
              // Not started in its moment (the pace taken), or held a moment (a throttle): a sender with the time
              // sends it (on Netlify, a drain) rather than the next sweep, minutes on.
              done?.outcome === "held" && done.until - clock().getTime() <= backlogHoldMs ? backlog?.() : undefined,
            )
            .then(() => resolve()),
      ),
    );
  }

  /**
   * A repeat signup of a listed address: one that has not confirmed, whose
   * last e-mail went out a day or more ago (the person may have lost it), is
   * asked again and sent a new e-mail; any other is left as it is. It runs
   * after the reply, so the reply does not tell who is listed; resolves once
   * done, and never throws.
   */
  function askAgainSoon(emailKey: string): Promise<void> {
    return new Promise((resolve) =>
      setImmediate(() => {
        const work = store
          .askToConfirm(emailKey, clock(), { resendAfterMs: askAgainAfterMs })
          .then((owed) => owed && attempt(owed))
          .catch((error: Error) =>
            log(`a repeat signup could not be asked to confirm again: ${redactAddresses(error.message)}`),
          );
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work)).then(() => resolve());
      }),
    );
  }

  let sweeping: Promise<SweepResult> | undefined;
  /**
   * One attempt for every owed confirmation that is due (nobody holds it, and its retry time has come), sent at the
   * pace until the next sweep: at a slow provider's pace a backlog goes on going out between sweeps, not a batch's
   * first twenty seconds of it each time.
   */
  function sweep(): Promise<SweepResult> {
    sweeping ??= sendDue(clock().getTime() + sweepMs).finally(() => {
      sweeping = undefined;
    });
    return sweeping;
  }

  /**
   * Attempts at the confirmations due, starting none past `until` (ms), reading the next batch while the last is sent:
   * Netlify's scheduled runs, which have 30 s and where every read is a round trip of tens of milliseconds and now
   * and then seconds (a 503 that @netlify/blobs retries after 5 s). A sweep that read a batch, sent it all and only
   * then read the next waited each time for its slowest read and its slowest message: 100 to 200 a run. Reading
   * stops when a read finds nothing new (on Blobs, one that found none in a batch's worth reads on until `until`),
   * when the pace holds every sender (the provider asked to wait: the rest wait for the hold's end, uncounted), or
   * once `until` is past; the attempts under way end, and no new one starts past `until`.
   */
  async function sendDue(until: number): Promise<SweepResult> {
    const result: SweepResult = { sent: 0, retrying: 0, refused: 0, held: 0, more: false };
    const seen = new Set<string>();
    const running = new Set<Promise<void>>();
    /** When the latest hold this call met ends (ms), and how many were held since the last read. */
    let holdEnds = 0;
    let heldSinceRead = 0;
    for (;;) {
      if (closed) break;
      if (holdEnds > clock().getTime()) {
        // A hold that ends within this call's time (a throttle's seconds) is waited out, its messages tried again;
        // one longer (a quota, the server down) ends it: the sweep after the hold's end goes on.
        if (holdEnds >= until) break;
        await Promise.all(running);
        await wait(Math.max(0, holdEnds - clock().getTime()));
        continue;
      }
      // Its time is over with more read than it could start, or more to read: for another sender (a drain on Netlify).
      if (clock().getTime() > until) {
        result.more = true;
        break;
      }
      // A batch waits for a slot at most: the next is read while it is sent.
      // (Others' attempts may fill the queue too: with none of this call's under way there is nothing to wait for.)
      while (waiting.length >= sweepBatch && running.size > 0) await Promise.race(running);
      heldSinceRead = 0;
      const due = await store.dueConfirmations(clock(), sweepBatch, { readUntil: until });
      const fresh = due.filter((owed) => !seen.has(owed.emailKey));
      if (fresh.length === 0) {
        // Those under way may yet be held a moment, and are tried again after it.
        if (running.size === 0 || closed) break;
        await Promise.all(running);
        if (heldSinceRead === 0) break;
        continue;
      }
      for (const owed of fresh) {
        seen.add(owed.emailKey);
        const work = attempt(owed, until).then((done) => {
          // Not started: its slot came past `until`; it stays due.
          if (done === undefined && !closed) result.more = true;
          if (done?.outcome === "held") {
            holdEnds = Math.max(holdEnds, done.until);
            seen.delete(owed.emailKey);
            heldSinceRead++;
          }
          tally(result, done);
        });
        running.add(work);
        void work.finally(() => running.delete(work));
      }
    }
    await Promise.all(running);
    // Held past this call's time: nothing for another sender to do before the hold ends.
    if (holdEnds >= until) result.more = false;
    return result;
  }

  let timer: ReturnType<typeof setInterval> | undefined;
  /** The running server's schedule: a sweep now, then every sweepMs. Resolves with the first sweep's result. */
  function start(): Promise<SweepResult> {
    timer ??= setInterval(() => {
      if (!closed) void sweep();
    }, sweepMs);
    timer.unref();
    return sweep();
  }

  /**
   * For `npm run waitlist -- resend-pending`: one attempt for every owed address, due or not, within the pace; it
   * stops where the provider asks every sender to wait.
   */
  async function resendPending(): Promise<ResendResult> {
    const result: ResendResult = { sent: 0, held: 0, pending: [], refused: [] };
    const owed = await store.pendingConfirmations();
    for (const [n, one] of owed.entries()) {
      // A founder runs it having put the mail server right: its first message tries through a hold of the server
      // down, and, sent, ends it for every sender.
      let done = await deliver(one, { probe: n === 0 });
      // Every start taken, or every connection held by the running site a moment (its leases last seconds past its
      // last message): a founder's run has the time, and waits for it rather than stopping as for a hold.
      while (done?.outcome === "held" && (done.hold === "busy" || done.hold === "throttle") && !closed) {
        await wait(Math.max(0, Math.min(done.until, clock().getTime() + waitForStartMs) - clock().getTime()));
        done = await deliver(one, { probe: n === 0 });
      }
      if (done === undefined) continue;
      if (done.outcome === "sent") result.sent++;
      else if (done.outcome === "not-ours") result.held++;
      else if (done.outcome === "retry") result.pending.push({ email: one.email, reason: done.reason });
      else if (done.outcome === "refused") result.refused.push({ email: one.email, reason: done.reason });
      else {
        // The provider asked every sender to wait: this one and the rest stay owed, for after the hold.
        result.stopped = { until: new Date(done.until).toISOString(), reason: done.reason };
        result.pending.push(...owed.slice(n).map(({ email }) => ({ email, reason: done.reason })));
        break;
      }
    }
    return result;
  }

  /** Resolves when every attempt under way has finished. */
  async function idle(): Promise<void> {
    while (inFlight.size > 0 || sweeping) await Promise.allSettled([...inFlight, sweeping]);
  }

  /**
   * For shutdown: stops the schedule, lets the sends under way finish and
   * starts no more; what is still owed stays in the store for the next start.
   */
  async function close(): Promise<void> {
    closed = true;
    sender.close();
    if (timer) clearInterval(timer);
    for (const turnAway of waiting.splice(0)) turnAway(false);
    await idle();
  }

  return { sendSoon, askAgainSoon, sweep, sendDue, start, resendPending, idle, close };
}

export interface SweepResult {
  sent: number;
  retrying: number;
  refused: number;
  /** Attempts not made: the pace held every sender (the sweep stops at the first). */
  held: number;
  /** Stopped by its time with more read than it could start: a sender with time is needed (a drain). */
  more: boolean;
}

export interface ResendResult {
  sent: number;
  /** Held by a running server's attempt right now: it will finish them. */
  held: number;
  /** Failed for now; still owed. */
  pending: { email: string; reason: string }[];
  /** Refused for good by the mail server: marked failed, never tried again. */
  refused: { email: string; reason: string }[];
  /** Set when the provider asked every sender to wait: when until, and why; the rest are among `pending`. */
  stopped?: { until: string; reason: string };
}

export type Confirmations = ReturnType<typeof createConfirmations>;
