import type { MailBookkeeping } from "../stores/store";
import { paceSetting, swapShard, type PaceShard } from "./pace-shards";

/*
 * The provider's connections, held by every process and function instance together: each shard of the schedule is
 * one connection's lease. A take from a shard names the taker as its holder until the start and `leaseMs` after it
 * (each take renews it); a take from a shard whose lease another live holder has is not possible, and one holder's
 * messages on one shard go one at a time, over its one connection. The holder's mailer closes that connection when it
 * is idle, at the latest when the lease ends (mailer.ts), so a dead holder's lease lapses by itself. No process has
 * more connections open than leases it holds, and the shards are at most the connections the provider allows
 * (pace-shards.ts): at any number of processes and instances, never more open at once than the provider allows.
 *
 * What it costs: nothing per message. A take wrote its shard before (one read, one write on Blobs: 2 operations,
 * about 0.0001 credits); the lease is in that same write, and it is never cleared by a write of its own but lapses.
 * A `421` for a connection past the provider's limit (an account's limit lower than said, another program on the
 * same account) rests its shard for ten minutes, lowering the connections every sender opens: one read and one
 * write, once. What it does cost is time: a shard another holds is skipped for one that is free, or its message left
 * owed for a sender with time (a sweep, a drain), as when the schedule is full.
 */

/** What a start's message goes over: its lease's connection, for `openForMs` at most from the start's taking. */
export interface PaceConnection {
  /** The shard whose lease it is: the mailer keeps one connection per lease. */
  lease: number;
  /** How long the connection may stay open from now (the lease's end less a margin): the mailer closes it by then. */
  openForMs: number;
  /** Said by the mailer when the provider refused the connection at its greeting (a 421 at its limit). */
  refused(): void;
}

/**
 * How long a lease lasts past its start: a message's time on its connection (opening it, 0.1 to 0.3 s; the provider's
 * answer, up to 1.5 s) many times over, and soon enough that a shard whose holder went idle or died is free again.
 */
export const defaultLeaseMs = 15_000;
/** A lease's last part, in which its holder no longer starts a message: it could not end before the lease does. */
export const leaseMarginMs = 5_000;
/** How long a shard rests after the provider refused its connection. */
export const restMs = 10 * 60_000;

/** Until when `holder` may take no start from `shard`: another's live lease, or a rest; undefined when it may. */
export function takenUntil(shard: PaceShard, holder: string, now: number): number | undefined {
  if (shard.rest !== undefined && shard.rest > now) return shard.rest;
  if (shard.lease && shard.lease.holder !== holder && shard.lease.until > now) return shard.lease.until;
  return undefined;
}

/**
 * One shard rested after the provider refused its connection, its lease given up: its connection opened by nobody
 * until the rest ends. Not the last shard awake, so that mail goes on over one connection at least (the others read
 * first: a refusal is rare, and never on a signup's usual path).
 */
export async function restShard(
  store: Pick<MailBookkeeping, "swapSetting" | "countMail" | "readSetting">,
  clock: () => number,
  index: number,
  shards: number,
): Promise<void> {
  const others = Array.from({ length: shards }, (_, n) => n).filter((n) => n !== index);
  const read = await Promise.all(others.map((n) => store.readSetting<PaceShard>(paceSetting(n))));
  if (!read.some((shard) => shard?.rest === undefined || shard.rest <= clock())) return;
  await swapShard(store, clock, index, (shard, now) => ({ ...shard, lease: undefined, rest: now + restMs }));
}

/**
 * This process's messages on each lease, one at a time: `line(lease)` resolves once the message before it on that
 * lease's connection is done, with the function that lets the next one go; `using(lease)`, whether a message of this
 * process has a start on it still to use.
 */
export function createLines() {
  const lines = new Map<number, { last: Promise<void>; waiting: number }>();
  async function line(lease: number): Promise<() => void> {
    const known = lines.get(lease);
    const before = known?.last ?? Promise.resolve();
    let free = () => {};
    const mine = new Promise<void>((resolve) => (free = resolve));
    const one = { last: before.then(() => mine), waiting: (known?.waiting ?? 0) + 1 };
    lines.set(lease, one);
    await before;
    return () => {
      free();
      const now = lines.get(lease);
      if (now && --now.waiting === 0) lines.delete(lease);
    };
  }
  return { line, using: (lease: number) => lines.has(lease), anyInUse: () => lines.size > 0 };
}
