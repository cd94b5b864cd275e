import { randomUUID } from "node:crypto";
import type { MailLimits } from "../../config/mail-providers";
import type { MailBookkeeping } from "../stores/store";
import { createHolds, type PaceOutcome, type PaceRefusal } from "./pace-holds";
import { createLines, defaultLeaseMs, leaseMarginMs, restShard, takenUntil, type PaceConnection } from "./pace-leases";
import { reserveOfTheDay, reserveRefusal, type MailKind } from "./pace-reserve";
import {
  jitterMs,
  nextUtcDay,
  pacedRate,
  paceSetting,
  shardGapMs,
  shardShare,
  shardsInUse,
  swapShard,
  type HoldReason,
  type PaceShard,
} from "./pace-shards";

export type { Hold, HoldReason, Lease, PaceShard } from "./pace-shards";
export { pacedRate, paceSetting, shardGapMs } from "./pace-shards";
export type { PaceOutcome, PaceRefusal } from "./pace-holds";
export type { PaceConnection } from "./pace-leases";
export type { MailKind } from "./pace-reserve";

/*
 * One pace for all mail: every sender (a signup's own e-mail, the sweep, npm start's server, resend-pending, let-in,
 * announce-policy-change, on every function instance at once) takes a start time from a schedule the store keeps, so
 * that together they send no faster than the provider allows, over no more connections than it allows, no more a day
 * than its quota, and nothing while the provider has asked to wait. The schedule is split into shards
 * (pace-shards.ts), each one connection to the provider (its lease: pace-leases.ts), at its share of the rate and of
 * the day, so that a burst's senders do not all wait on one compare-and-swap; a sender takes a shard at random. A take
 * is one read and one write of a shard, the same as the claim a signup's own e-mail no longer needs (signup-life's
 * add claims it for the signup's sender). What a refusal holds every sender to is pace-holds.ts's; the share of the
 * day kept for confirmations, pace-reserve.ts's.
 */

export interface PaceOptions {
  store: Pick<MailBookkeeping, "swapSetting" | "readSetting" | "countMail" | "mailDays">;
  limits: MailLimits;
  /** The shards at most (the Blobs store's eight); as many as the provider's connections otherwise. */
  shards?: number;
  clock?: () => number;
  /** Waits `ms`; the bench's simulated clock stands in for it (scripts/bench-netlify/latency.ts). */
  wait?: (ms: number) => Promise<void>;
  /** A start later than this from now is not taken: the caller leaves the message owed, for a sender with time. */
  maxWaitMs?: number;
  log?: (line: string) => void;
  random?: () => number;
  /** Who holds this pace's connections' leases: this process, or function instance (a random id by default). */
  holder?: string;
  /** How long a lease lasts past its start (pace-leases.ts). */
  leaseMs?: number;
  /** The messages a day kept for confirmations; by default from the last 7 days' figures (pace-reserve.ts). */
  reserve?: number;
}

/** What a start is for: the kind of message (a confirmation by default), and a probe through the server down. */
export interface TakeOptions {
  probe?: boolean;
  maxWaitMs?: number;
  kind?: MailKind;
}

/**
 * What the mail server's reply said of its time (mailer.ts): how long before its reply it had the whole message,
 * about, which is when a provider counts it against its rate.
 */
export interface MailSent {
  answeredAfterMs: number;
}

/** A start taken: the message may go now, over `connection`; `done` says how it went (once). */
export interface PaceTicket {
  go: true;
  /** The lease's connection the message goes over (mailer.send's second argument); none without a provider's limits. */
  connection?: PaceConnection;
  /**
   * Resolves with when the hold ends, for an outcome that holds every sender. `sent`: the server's timing, for a
   * message sent; without it, the provider is taken to have counted the message as `done` is called.
   */
  done(outcome: PaceOutcome, sent?: MailSent | void): Promise<number | undefined>;
}

/**
 * The provider's window as one process keeps it by its own messages' measured times: `count` messages had by the
 * provider in any `windowMs` at most, the jitter's share to spare (at 14 a second, 14 in 1.2 s; at 1 a second, or
 * 30 a minute, one in 1.2 s or 2.4 s).
 */
const ownWindow = (ratePerSecond: number) => {
  const count = Math.max(1, Math.floor(ratePerSecond));
  return { count, windowMs: (count * (1000 + jitterMs)) / ratePerSecond };
};

/**
 * A named wait, so the bench can hold it on its simulated clock (latency.ts matches timers by the function that
 * sets them).
 */
export function paceWait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type Taken = { start: number; until: number };

export function createMailPace({
  store,
  limits,
  shards: most,
  clock = Date.now,
  wait = paceWait,
  maxWaitMs = 20_000,
  log = () => {},
  random = Math.random,
  holder = randomUUID(),
  leaseMs = defaultLeaseMs,
  reserve,
}: PaceOptions): MailPace {
  const shards = shardsInUse(limits, most);
  const holds = createHolds({ store, clock, shards, log });
  const { line, using, anyInUse } = createLines();
  const reserveNow = reserveOfTheDay({ store, dailyLimit: limits.dailyLimit, reserve });
  /**
   * This process's last messages, in the order they started: when the provider had each (`at`, once known), and a
   * promise settled once it is (`done`). A start is a plan; what the provider counts is when a message reaches it,
   * later by a connection opened for it, the store's work before it, a busy machine. On a test machine beside busy
   * work, the first message of a burst at 1 a second reached the provider 248 ms after its start (a connection opened
   * and greeted), and the next, on the open connection at its start 1.2 s on, 987 ms after it: a throttle. So each
   * message also starts no sooner than the window after the one `count` before it, as that one was had.
   */
  const window = ownWindow(limits.ratePerSecond);
  const had: { at?: number; known: Promise<void> }[] = [];
  /** The shards whose lease this process took, for release(). */
  const leased = new Set<number>();

  async function takeFrom(
    index: number,
    { probe, mayWait, reserved }: { probe: boolean; mayWait: number; reserved: number },
  ): Promise<Taken | PaceRefusal | "full"> {
    let outcome: Taken | PaceRefusal | "full" = "full";
    await swapShard(store, clock, index, (shard, now) => {
      outcome = "full";
      const held = holds.readHold(shard, now, probe);
      if (held) {
        outcome = held;
        return undefined;
      }
      // Another's connection, or resting after the provider refused one: no start here, as if busy till then.
      const taken = takenUntil(shard, holder, now);
      if (taken !== undefined) {
        outcome = { go: false, until: taken, reason: "busy" };
        return undefined;
      }
      if (limits.dailyLimit !== null) {
        const share = shardShare(limits.dailyLimit, shards, index);
        if (shard.sent >= share) return undefined;
        if (shard.sent >= share - shardShare(reserved, shards, index)) {
          outcome = reserveRefusal(now);
          return undefined;
        }
      }
      // Each shard starts on its own phase of one grid, so that together they start one message every gap/shards
      // however many are idle: eight idle shards starting at once were eight messages in a provider's second.
      const gap = shardGapMs(limits, shards, shard, now);
      const phase = (index * gap) / shards;
      const start = phase + Math.ceil((Math.max(now, shard.next) - phase) / gap) * gap;
      if (start - now > mayWait) {
        outcome = { go: false, until: start, reason: "busy" };
        return undefined;
      }
      const until = start + leaseMs;
      outcome = { start, until };
      return { ...shard, next: start + gap, sent: shard.sent + 1, lease: { holder, until } };
    });
    return outcome;
  }

  /**
   * A start for one message, waited for (and for its lease's connection, free of this process's message before it);
   * or why there is none now. A `probe` goes through a hold of the server down (a founder who put it right asks to
   * try): sent, it ends the hold. A kind other than a confirmation gets none from the day's reserve.
   */
  async function take({
    probe = false,
    maxWaitMs: mayWait = maxWaitMs,
    kind = "confirmation",
  }: TakeOptions = {}): Promise<PaceTicket | PaceRefusal> {
    const held = holds.heldNow(probe);
    if (held) return held;
    const reserved = kind === "confirmation" ? 0 : await reserveNow(clock());
    // In a burst, a shard at random first, so that its senders write different blobs; a lone message (none of this
    // process's under way), the shard whose phase comes next, as one schedule would give it. One busy further off than
    // the caller may wait (or another's connection) sends it on to the shard whose phase comes next, then round: a
    // slow provider's shards are each seconds apart, and one just used is no reason to leave a message owed while
    // another is free. Shards with no message of this process's on their connection come first: a burst uses every
    // connection it may hold.
    const soonest = (Math.floor(clock() / (1000 / pacedRate(limits.ratePerSecond))) + 1) % shards;
    const first = anyInUse() ? Math.floor(random() * shards) : soonest;
    const round = [
      first,
      ...Array.from({ length: shards }, (_, n) => (soonest + n) % shards).filter((i) => i !== first),
    ];
    const order = [...round.filter((i) => !using(i)), ...round.filter((i) => using(i))];
    let taken: Taken | undefined;
    let index = first;
    let inLine: Promise<() => void> | undefined;
    let busy: PaceRefusal | undefined;
    let kept: PaceRefusal | undefined;
    for (const next of order) {
      // Its place on the shard's connection, held while it asks: a sender asking meanwhile tries another first.
      const place = line(next);
      const outcome = await takeFrom(next, { probe, mayWait, reserved });
      if (outcome !== "full" && "start" in outcome) {
        [taken, index, inLine] = [outcome, next, place];
        leased.add(next);
        break;
      }
      void place.then((free) => free());
      if (outcome === "full") continue;
      if (outcome.reason === "busy") busy = busy && busy.until <= outcome.until ? busy : outcome;
      else if (outcome.reason === "reserve") kept = outcome;
      else return outcome;
    }
    if (!taken || !inLine) {
      if (busy ?? kept) return (busy ?? kept)!;
      // Every shard has had its share of the day: nothing more until the next UTC day.
      const until = nextUtcDay(clock());
      await holds.hold("quota", until, `the daily limit of ${limits.dailyLimit} messages is reached`);
      return { go: false, until, reason: "quota" };
    }
    const now = clock();
    if (taken.start > now) await wait(taken.start - now);
    const free = await inLine;
    // Its place among this process's messages, then the wait for the one `count` before it to be had and the window
    // after: a message whose server took long to reach delays the ones after it, not the provider's count.
    let knowIt = () => {};
    const own: (typeof had)[number] = { known: new Promise<void>((resolve) => (knowIt = resolve)) };
    const before = had.length >= window.count ? had[had.length - window.count] : undefined;
    had.push(own);
    if (had.length > window.count) had.shift();
    if (before) {
      await before.known;
      const apart = (before.at ?? -Infinity) + window.windowMs - clock();
      if (apart > 0) await wait(apart);
    }
    // A hold that began while it waited, or a lease too near its end for a message to go and end within it: its
    // start is given up (counted in the day's figures, a few at most).
    const heldSince = holds.heldNow(probe);
    const leaseLeft = taken.until - leaseMarginMs - clock();
    if (heldSince || leaseLeft <= 0) {
      knowIt();
      free();
      return heldSince ?? { go: false, until: clock(), reason: "busy" };
    }
    let told = false;
    let refused = false;
    return {
      go: true,
      connection: { lease: index, openForMs: leaseLeft, refused: () => void (refused = true) },
      async done(outcome, sent) {
        if (told) return undefined;
        told = true;
        // Had by the provider before its reply by what the server's timing says; counted as now without it (the
        // latest it can be); never, if it did not go.
        if (outcome !== "unused") own.at = clock() - (outcome === "sent" && sent ? sent.answeredAfterMs : 0);
        knowIt();
        try {
          if (probe && outcome === "sent") await holds.endDownHold();
          // One connection fewer for every sender: the provider refused this one past its limit.
          if (refused) await restShard(store, clock, index, shards);
          // What it holds every sender to is known before its connection goes to the next message, which would
          // otherwise go into the hold it began.
          return await holds.after(outcome);
        } finally {
          free();
        }
      },
    };
  }

  /**
   * The schedule as the store keeps it, every shard written so far, each with the counts of its day (an earlier day's
   * until it is next written): for the founders' reports (reports/mail-outlook.ts).
   */
  async function shardsNow(): Promise<PaceShard[]> {
    const read = await Promise.all(
      Array.from({ length: shards }, (_, index) => store.readSetting<PaceShard>(paceSetting(index))),
    );
    return read.filter((shard) => shard !== undefined);
  }

  /**
   * Gives back the leases this process took, its connections closed (a founder's command as it ends): the next
   * process need not wait for them to lapse. One read and at most one write a shard it took.
   */
  async function release(): Promise<void> {
    for (const index of leased) {
      await store.swapSetting<PaceShard>(paceSetting(index), (found) =>
        found?.lease?.holder === holder ? { ...found, lease: undefined } : undefined,
      );
    }
    leased.clear();
  }

  return { take, hold: holds.hold, shards: shardsNow, release, limits };
}

/**
 * A start for a sender that can wait (a founder's command): through a throttle's short hold or a busy schedule,
 * waited for; none past a daily quota or the server down, which the caller reports as a stop.
 */
export async function takeWaiting(
  pace: MailPace,
  {
    clock = Date.now,
    stopped = () => false,
    wait = paceWait,
    probe = false,
    kind,
  }: {
    clock?: () => number;
    stopped?: () => boolean;
    wait?: (ms: number) => Promise<void>;
    probe?: boolean;
    kind?: MailKind;
  } = {},
): Promise<PaceTicket | PaceRefusal> {
  for (;;) {
    const ticket = await pace.take({ probe, kind });
    if (ticket.go || stopped() || ticket.reason === "quota" || ticket.reason === "down") return ticket;
    if (ticket.reason === "reserve") return ticket;
    await wait(Math.max(0, ticket.until - clock()));
  }
}

/** Why a sender stopped, as a founder reads it. */
export const heldWords = ({ reason, until }: PaceRefusal) =>
  reason === "reserve"
    ? `the rest of today's quota is held back for the confirmations' reserve: nothing more is sent before ${new Date(until).toISOString()}`
    : `the mail provider ${
        {
          throttle: "asked to slow down",
          quota: "says its daily quota is used",
          down: "is not taking mail",
          busy: "is at its pace",
        }[reason]
      }: nothing more is sent before ${new Date(until).toISOString()}`;

export interface MailPace {
  take(options?: TakeOptions): Promise<PaceTicket | PaceRefusal>;
  hold(reason: HoldReason, until?: number, why?: string): Promise<number>;
  shards(): Promise<PaceShard[]>;
  /** Gives back this process's leases, once its mailer is closed. */
  release(): Promise<void>;
  limits: MailLimits;
}

/** A pace that lets everything go at once: the outbox folder on this machine, which no provider limits. */
export const unlimitedPace: MailPace = {
  take: async () => ({ go: true, done: async () => undefined }),
  hold: async () => 0,
  shards: async () => [],
  release: async () => {},
  limits: { ratePerSecond: Infinity, connections: Infinity, dailyLimit: null },
};
