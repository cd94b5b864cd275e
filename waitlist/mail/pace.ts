import type { MailLimits } from "../../config/mail-providers";
import { quotaEndsAt } from "./replies";
import type { MailBookkeeping } from "../stores/store";

/*
 * One pace for all mail: every sender (a signup's own e-mail, the sweep, npm start's server, resend-pending, let-in,
 * announce-policy-change, on every function instance at once) takes a start time from a schedule the store keeps, so
 * that together they send no faster than the provider allows, no more a day than its quota, and nothing while the
 * provider has asked to wait. The schedule is split into shards (the Blobs store's: up to eight), each at its share of the
 * rate and of the day, so that a burst's senders do not all wait on one compare-and-swap; a sender takes a shard at
 * random. A take is one read and one write of a shard, the same as the claim a signup's own e-mail no longer needs
 * (signup-life's add claims it for the signup's sender).
 *
 * What a provider's refusal means (replies.ts) is said here once for every sender: a throttle holds every sender a
 * moment and slows them for ten minutes; a daily quota holds them until the quota's day is over; the server down
 * (unreachable, its credentials refused, or five recipients in a row deferred) holds them a minute, then longer.
 * A message held is given back owed, and no attempt is counted against it.
 */

export type HoldReason = "throttle" | "quota" | "down";

/** How one message went, told to the pace after it (PaceTicket.done). */
export type PaceOutcome = "sent" | "refused" | "throttle" | "quota" | "down" | "transient" | "unused";

export interface Hold {
  reason: HoldReason;
  /** No message starts before then (ms). */
  until: number;
  /** When the first of a run of holds of this reason began (ms), and how many in a row. */
  since: number;
  count: number;
}

/** One shard of the schedule, as the store keeps it (swapSetting, `mail-pace-<n>`). */
export interface PaceShard {
  /** When the shard's next message may start (ms). */
  next: number;
  /** The UTC day its counts are of. */
  day: string;
  sent: number;
  throttled: number;
  hold?: Hold;
  /** A throttle's slowing: this share of the rate until `until` (ms). */
  slow?: { factor: number; until: number };
}

export interface PaceOptions {
  store: Pick<MailBookkeeping, "swapSetting" | "readSetting" | "countMail">;
  limits: MailLimits;
  shards?: number;
  clock?: () => number;
  /** Waits `ms`; the bench's simulated clock stands in for it (scripts/bench-netlify/latency.ts). */
  wait?: (ms: number) => Promise<void>;
  /** A start later than this from now is not taken: the caller leaves the message owed, for a sender with time. */
  maxWaitMs?: number;
  log?: (line: string) => void;
  random?: () => number;
}

/**
 * What the mail server's reply said of its time (mailer.ts): how long before its reply it had the whole message,
 * about, which is when a provider counts it against its rate.
 */
export interface MailSent {
  answeredAfterMs: number;
}

/** A start taken: the message may go now; `done` says how it went (once). */
export interface PaceTicket {
  go: true;
  /**
   * Resolves with when the hold ends, for an outcome that holds every sender. `sent`: the server's timing, for a
   * message sent; without it, the provider is taken to have counted the message as `done` is called.
   */
  done(outcome: PaceOutcome, sent?: MailSent | void): Promise<number | undefined>;
}
/** No start: the provider asked to wait until `until`, or every start is further off than the caller may wait. */
export interface PaceRefusal {
  go: false;
  until: number;
  reason: HoldReason | "busy";
}

/**
 * The time a message may take more than the one before it to reach the provider (a connection opened for it, a busy
 * machine): starts are spaced so that a provider's sliding second never holds one message too many even then. At
 * 1 a second, the first message of a burst, which opens the connection, took 150 ms more than the next on a busy
 * test machine; a tenth of the rate to spare (111 ms) was not enough.
 */
const jitterMs = 200;
/** The messages a second every sender together starts at most: the provider's rate, less the jitter's share. */
export const pacedRate = (ratePerSecond: number) => (ratePerSecond * 1000) / (1000 + jitterMs);
/**
 * The provider's window as one process keeps it by its own messages' measured times: `count` messages had by the
 * provider in any `windowMs` at most, the jitter's share to spare (at 14 a second, 14 in 1.2 s; at 1 a second, or
 * 30 a minute, one in 1.2 s or 2.4 s).
 */
const ownWindow = (ratePerSecond: number) => {
  const count = Math.max(1, Math.floor(ratePerSecond));
  return { count, windowMs: (count * (1000 + jitterMs)) / ratePerSecond };
};
/** A throttle's hold, doubled with each in a row, at most a minute; its slowing, and for how long. */
const throttleHoldMs = [2_000, 4_000, 8_000, 16_000, 32_000, 60_000];
const slowFactor = 0.7;
const slowForMs = 10 * 60_000;
/** The server down: a minute, then 2, 5, 10, and every 15 minutes, until one message goes. */
const downHoldMs = [60_000, 120_000, 300_000, 600_000, 900_000];
/** Recipients deferred in a row, with none sent between, that say the server is down. */
const deferredInARow = 5;
/** Holds of one reason that began within this of the last one ended count as a run. */
const runGapMs = 30 * 60_000;

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const nextUtcDay = (ms: number) => Date.parse(`${utcDay(ms)}T00:00:00.000Z`) + 86_400_000;
export const paceSetting = (shard: number) => `mail-pace-${shard}` as const;

/** A message every this many ms from one shard, at the rate now allowed. */
export function shardGapMs(limits: MailLimits, shards: number, shard: PaceShard | undefined, now: number) {
  const slow = shard?.slow && shard.slow.until > now ? shard.slow.factor : 1;
  return (shards * 1000) / (pacedRate(limits.ratePerSecond) * slow);
}

/** A shard's share of the daily limit: the first shards take the remainder. */
const shardDaily = (dailyLimit: number, shards: number, index: number) =>
  Math.floor(dailyLimit / shards) + (index < dailyLimit % shards ? 1 : 0);

/**
 * A named wait, so the bench can hold it on its simulated clock (latency.ts matches timers by the function that
 * sets them).
 */
export function paceWait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function createMailPace({
  store,
  limits,
  shards: most = 1,
  clock = Date.now,
  wait = paceWait,
  maxWaitMs = 20_000,
  log = () => {},
  random = Math.random,
}: PaceOptions): MailPace {
  /**
   * The shards in use: as many as a second's messages, up to `most`. A shard's starts are `shards` of the provider's
   * intervals apart, so at 1 a second eight shards put a free start up to 9.6 s off for a sender drawing a shard at
   * random; a slow provider's few senders a second need no spreading.
   */
  const shards = Math.max(1, Math.min(most, Math.ceil(pacedRate(limits.ratePerSecond))));
  /** This process's messages in flight: at most its connections. */
  let inFlight = 0;
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
  const freed: (() => void)[] = [];
  /** Recipients deferred in a row by this sender, none sent between. */
  let deferred = 0;
  /**
   * The last hold this process learnt of (a refusal it had, or a shard it read): a start taken before it, waiting for
   * its time, is not used while it lasts, and no shard is read for a start until it ends.
   */
  let known: PaceRefusal | undefined;
  const heldNow = (probe: boolean) =>
    known && known.until > clock() && !(probe && known.reason === "down") ? known : undefined;

  /** A shard as read, moved on to today: yesterday's counts go to the day's figures once (the writer's). */
  const today = (shard: PaceShard | undefined, now: number): PaceShard =>
    shard && shard.day === utcDay(now)
      ? shard
      : { next: shard?.next ?? 0, day: utcDay(now), sent: 0, throttled: 0, hold: shard?.hold, slow: shard?.slow };

  /**
   * One shard changed by compare-and-swap, moved on to today first; a day it closes goes to the store's day figures
   * once, by the writer that closed it, so every message counted is in exactly one place (the shard, or mailDays).
   */
  async function swapShard(index: number, change: (shard: PaceShard, now: number) => PaceShard | undefined) {
    let closedDay: PaceShard | undefined;
    const written = await store.swapSetting<PaceShard>(paceSetting(index), (found) => {
      const now = clock();
      const shard = today(found, now);
      closedDay = found && found.day !== shard.day ? found : undefined;
      return change(shard, now) ?? (closedDay ? shard : undefined);
    });
    if (written && closedDay) {
      const { day, sent, throttled } = closedDay;
      await store.countMail(day, { sent, throttled });
    }
  }

  async function takeFrom(
    index: number,
    probe: boolean,
    mayWait: number,
  ): Promise<{ start: number } | PaceRefusal | "full"> {
    let outcome: { start: number } | PaceRefusal | "full" = "full";
    await swapShard(index, (shard, now) => {
      outcome = "full";
      if (shard.hold && shard.hold.until > now && !(probe && shard.hold.reason === "down")) {
        outcome = known = { go: false, until: shard.hold.until, reason: shard.hold.reason };
        return undefined;
      }
      if (limits.dailyLimit !== null && shard.sent >= shardDaily(limits.dailyLimit, shards, index)) return undefined;
      // Each shard starts on its own phase of one grid, so that together they start one message every gap/shards
      // however many are idle: eight idle shards starting at once were eight messages in a provider's second.
      const gap = shardGapMs(limits, shards, shard, now);
      const phase = (index * gap) / shards;
      const start = phase + Math.ceil((Math.max(now, shard.next) - phase) / gap) * gap;
      if (start - now > mayWait) {
        outcome = { go: false, until: start, reason: "busy" };
        return undefined;
      }
      outcome = { start };
      return { ...shard, next: start + gap, sent: shard.sent + 1 };
    });
    return outcome;
  }

  /**
   * A start for one message, waited for (and for a connection of this process's); or why there is none now. A
   * `probe` goes through a hold of the server down (a founder who put it right asks to try): sent, it ends the hold.
   */
  async function take({
    probe = false,
    maxWaitMs: mayWait = maxWaitMs,
  }: { probe?: boolean; maxWaitMs?: number } = {}): Promise<PaceTicket | PaceRefusal> {
    const held = heldNow(probe);
    if (held) return held;
    // A shard at random first, so that a burst's senders write different blobs; one busy further off than the caller
    // may wait sends it on to the shard whose phase comes next, then round: a slow provider's shards are each seconds
    // apart, and one just used is no reason to leave a message owed while another is free.
    const first = Math.floor(random() * shards);
    const soonest = Math.ceil(clock() / (1000 / pacedRate(limits.ratePerSecond))) % shards;
    const order = [
      first,
      ...Array.from({ length: shards }, (_, n) => (soonest + n) % shards).filter((i) => i !== first),
    ];
    let taken: { start: number } | undefined;
    let busy: PaceRefusal | undefined;
    for (const index of order) {
      if (taken) break;
      const outcome = await takeFrom(index, probe, mayWait);
      if (outcome === "full") continue;
      if ("go" in outcome && outcome.reason === "busy") busy = busy && busy.until <= outcome.until ? busy : outcome;
      else if ("go" in outcome) return outcome;
      else taken = outcome;
    }
    if (!taken && busy) return busy;
    if (!taken) {
      // Every shard has had its share of the day: nothing more until the next UTC day.
      const until = nextUtcDay(clock());
      await hold("quota", until, `the daily limit of ${limits.dailyLimit} messages is reached`);
      return { go: false, until, reason: "quota" };
    }
    const now = clock();
    if (taken.start > now) await wait(taken.start - now);
    while (inFlight >= limits.connections) await new Promise<void>((resolve) => freed.push(resolve));
    inFlight++;
    const free = () => {
      inFlight--;
      freed.shift()?.();
    };
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
    // A hold that began while it waited: its start is given up (counted in the day's figures, a few at most).
    const heldSince = heldNow(probe);
    if (heldSince) {
      knowIt();
      free();
      return heldSince;
    }
    let told = false;
    return {
      go: true,
      async done(outcome, sent) {
        if (told) return undefined;
        told = true;
        // Had by the provider before its reply by what the server's timing says; counted as now without it (the
        // latest it can be); never, if it did not go.
        if (outcome !== "unused") own.at = clock() - (outcome === "sent" && sent ? sent.answeredAfterMs : 0);
        knowIt();
        try {
          if (probe && outcome === "sent") await endDownHold();
          // What it holds every sender to is known before its connection goes to the next message, which would
          // otherwise go into the hold it began.
          return await after(outcome);
        } finally {
          free();
        }
      },
    };
  }

  async function after(outcome: PaceOutcome): Promise<number | undefined> {
    if (outcome === "sent" || outcome === "refused") deferred = 0;
    else if (outcome === "transient" && ++deferred >= deferredInARow) {
      deferred = 0;
      await hold("down", undefined, `${deferredInARow} recipients in a row were deferred`);
    } else if (outcome === "throttle" || outcome === "quota" || outcome === "down") return hold(outcome);
    return undefined;
  }

  /**
   * Holds every sender (each shard says so) for `reason`: until `until`, or as long as its run so far asks. Said once
   * in the log, by the sender whose write began the hold. Resolves with when the hold (this one, or one longer that
   * was there) ends.
   */
  async function hold(reason: HoldReason, until?: number, why?: string): Promise<number> {
    let began: Hold | undefined;
    let ends = until ?? clock();
    for (let index = 0; index < shards; index++) {
      await swapShard(index, (shard, now) => {
        const last = shard.hold;
        const run = last?.reason === reason && last.until + runGapMs > now ? last : undefined;
        if (last && last.until > now && (last.reason === reason || last.until >= (until ?? 0))) {
          ends = Math.max(ends, last.until);
          return undefined;
        }
        const count = (run?.count ?? 0) + 1;
        const schedule = reason === "throttle" ? throttleHoldMs : downHoldMs;
        const end =
          until ?? (reason === "quota" ? quotaEndsAt(now) : now + schedule[Math.min(count, schedule.length) - 1]!);
        const next: PaceShard = { ...shard, hold: { reason, until: end, since: run?.since ?? now, count } };
        if (reason === "throttle") {
          next.throttled = shard.throttled + 1;
          const factor = shard.slow && shard.slow.until > now ? shard.slow.factor * slowFactor : slowFactor;
          next.slow = { factor: Math.max(factor, 0.1), until: now + slowForMs };
        }
        if (index === 0) began = next.hold;
        ends = Math.max(ends, end);
        return next;
      });
    }
    known = { go: false, until: ends, reason };
    if (began) {
      const at = new Date(began.until).toISOString();
      const words = {
        throttle: "asked to slow down",
        quota: "says its daily quota is used",
        down: "is not taking mail",
      };
      log(`the mail provider ${words[reason]}${why ? ` (${why})` : ""}: nothing is sent until ${at}`);
    }
    return ends;
  }

  /** A probe went: the server is up, and every sender may go on. */
  async function endDownHold(): Promise<void> {
    if (known?.reason === "down") known = undefined;
    for (let index = 0; index < shards; index++) {
      await store.swapSetting<PaceShard>(paceSetting(index), (found) =>
        found?.hold?.reason === "down" ? { ...found, hold: undefined } : undefined,
      );
    }
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

  return { take, hold, shards: shardsNow, limits };
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
  }: { clock?: () => number; stopped?: () => boolean; wait?: (ms: number) => Promise<void>; probe?: boolean } = {},
): Promise<PaceTicket | PaceRefusal> {
  for (;;) {
    const ticket = await pace.take({ probe });
    if (ticket.go || stopped() || ticket.reason === "quota" || ticket.reason === "down") return ticket;
    await wait(Math.max(0, ticket.until - clock()));
  }
}

/** Why a sender stopped, as a founder reads it. */
export const heldWords = ({ reason, until }: PaceRefusal) =>
  `the mail provider ${
    {
      throttle: "asked to slow down",
      quota: "says its daily quota is used",
      down: "is not taking mail",
      busy: "is at its pace",
    }[reason]
  }: nothing more is sent before ${new Date(until).toISOString()}`;

export interface MailPace {
  take(options?: { probe?: boolean; maxWaitMs?: number }): Promise<PaceTicket | PaceRefusal>;
  hold(reason: HoldReason, until?: number, why?: string): Promise<number>;
  shards(): Promise<PaceShard[]>;
  limits: MailLimits;
}

/** A pace that lets everything go at once: the outbox folder on this machine, which no provider limits. */
export const unlimitedPace: MailPace = {
  take: async () => ({ go: true, done: async () => undefined }),
  hold: async () => 0,
  shards: async () => [],
  limits: { ratePerSecond: Infinity, connections: Infinity, dailyLimit: null },
};
