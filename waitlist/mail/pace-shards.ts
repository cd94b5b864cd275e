import type { MailLimits } from "../../config/mail-providers";
import type { MailBookkeeping } from "../stores/store";

/*
 * The pace's schedule as the store keeps it: shards, each one connection to the provider (its lease, pace-leases.ts)
 * and its share of the rate and of the day, changed by compare-and-swap. Every message counted is in exactly one
 * place: the shard of its day, or, once the day is closed, the store's day figures (mailDays).
 */

export type HoldReason = "throttle" | "quota" | "down";

export interface Hold {
  reason: HoldReason;
  /** No message starts before then (ms). */
  until: number;
  /** When the first of a run of holds of this reason began (ms), and how many in a row. */
  since: number;
  count: number;
}

/** Who holds a shard's connection, and until when at the latest (ms): pace-leases.ts. */
export interface Lease {
  holder: string;
  until: number;
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
  /** The process or function instance whose connection this shard is, while it has one open. */
  lease?: Lease;
  /** Its connection not opened by anyone until then (ms): the provider refused one past its limit (421). */
  rest?: number;
}

/**
 * The time a message may take more than the one before it to reach the provider (a connection opened for it, a busy
 * machine): starts are spaced so that a provider's sliding second never holds one message too many even then. At
 * 1 a second, the first message of a burst, which opens the connection, took 150 ms more than the next on a busy
 * test machine; a tenth of the rate to spare (111 ms) was not enough.
 */
export const jitterMs = 200;
/** The messages a second every sender together starts at most: the provider's rate, less the jitter's share. */
export const pacedRate = (ratePerSecond: number) => (ratePerSecond * 1000) / (1000 + jitterMs);

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const nextUtcDay = (ms: number) => Date.parse(`${utcDay(ms)}T00:00:00.000Z`) + 86_400_000;
export const paceSetting = (shard: number) => `mail-pace-${shard}` as const;

/**
 * The shards in use: one a connection the provider allows, as many as a second's messages, up to `most` (the Blobs
 * store's eight). A shard's starts are `shards` of the provider's intervals apart, so at 1 a second eight shards put a
 * free start up to 9.6 s off for a sender drawing a shard at random; a slow provider's few senders a second need no
 * spreading, and one connection carries them.
 */
export const shardsInUse = (limits: MailLimits, most = Infinity) =>
  Math.max(1, Math.min(most, limits.connections, Math.ceil(pacedRate(limits.ratePerSecond))));

/** A message every this many ms from one shard, at the rate now allowed. */
export function shardGapMs(limits: MailLimits, shards: number, shard: PaceShard | undefined, now: number) {
  const slow = shard?.slow && shard.slow.until > now ? shard.slow.factor : 1;
  return (shards * 1000) / (pacedRate(limits.ratePerSecond) * slow);
}

/** A shard's share of a day's figure (the daily limit, the confirmations' reserve): the first shards take the rest. */
export const shardShare = (perDay: number, shards: number, index: number) =>
  Math.floor(perDay / shards) + (index < perDay % shards ? 1 : 0);

/** A shard as read, moved on to today: yesterday's counts go to the day's figures once (the writer's). */
const today = (shard: PaceShard | undefined, now: number): PaceShard =>
  shard && shard.day === utcDay(now)
    ? shard
    : { ...shard, next: shard?.next ?? 0, day: utcDay(now), sent: 0, throttled: 0 };

/**
 * One shard changed by compare-and-swap, moved on to today first; a day it closes goes to the store's day figures
 * once, by the writer that closed it, so every message counted is in exactly one place (the shard, or mailDays).
 */
export async function swapShard(
  store: Pick<MailBookkeeping, "swapSetting" | "countMail">,
  clock: () => number,
  index: number,
  change: (shard: PaceShard, now: number) => PaceShard | undefined,
): Promise<void> {
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
