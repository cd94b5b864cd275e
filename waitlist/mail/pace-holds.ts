import { quotaEndsAt } from "./replies";
import type { MailBookkeeping } from "../stores/store";
import { paceSetting, swapShard, type Hold, type HoldReason, type PaceShard } from "./pace-shards";

/*
 * What a provider's refusal means (replies.ts) is said here once for every sender: a throttle holds every sender a
 * moment and slows them for ten minutes; a daily quota holds them until the quota's day is over; the server down
 * (unreachable, its credentials refused, or five recipients in a row deferred) holds them a minute, then longer.
 * A message held is given back owed, and no attempt is counted against it. Every shard says so, so that a sender
 * reading any one shard learns of the hold.
 */

/** How one message went, told to the pace after it (PaceTicket.done). */
export type PaceOutcome = "sent" | "refused" | "throttle" | "quota" | "down" | "transient" | "unused";

/**
 * No start: the provider asked to wait until `until`; every start is further off than the caller may wait, or each
 * shard's connection is another's ("busy"); or the rest of the day is the confirmations' (pace-reserve.ts).
 */
export interface PaceRefusal {
  go: false;
  until: number;
  reason: HoldReason | "busy" | "reserve";
}

/** A throttle's hold, doubled with each in a row, at most a minute; its slowing, and for how long. */
const throttleHoldMs = [2_000, 4_000, 8_000, 16_000, 32_000, 60_000];
const slowFactor = 0.7;
export const slowForMs = 10 * 60_000;
/** The server down: a minute, then 2, 5, 10, and every 15 minutes, until one message goes. */
const downHoldMs = [60_000, 120_000, 300_000, 600_000, 900_000];
/** Recipients deferred in a row, with none sent between, that say the server is down. */
const deferredInARow = 5;
/** Holds of one reason that began within this of the last one ended count as a run. */
const runGapMs = 30 * 60_000;

const holdWords: Record<HoldReason, string> = {
  throttle: "asked to slow down",
  quota: "says its daily quota is used",
  down: "is not taking mail",
};

export function createHolds({
  store,
  clock,
  shards,
  log,
}: {
  store: Pick<MailBookkeeping, "swapSetting" | "countMail">;
  clock: () => number;
  shards: number;
  log: (line: string) => void;
}) {
  /**
   * The last hold this process learnt of (a refusal it had, or a shard it read): a start taken before it, waiting for
   * its time, is not used while it lasts, and no shard is read for a start until it ends.
   */
  let known: PaceRefusal | undefined;
  /** Recipients deferred in a row by this sender, none sent between. */
  let deferred = 0;

  /** The hold this process knows of now; a `probe` goes through one of the server down. */
  const heldNow = (probe: boolean) =>
    known && known.until > clock() && !(probe && known.reason === "down") ? known : undefined;

  /** A shard's hold as a refusal, learnt; none when it is over or a probe may pass it. */
  function readHold(shard: PaceShard, now: number, probe: boolean): PaceRefusal | undefined {
    const { hold } = shard;
    if (!hold || hold.until <= now || (probe && hold.reason === "down")) return undefined;
    return (known = { go: false, until: hold.until, reason: hold.reason });
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
      await swapShard(store, clock, index, (shard, now) => {
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
      log(`the mail provider ${holdWords[reason]}${why ? ` (${why})` : ""}: nothing is sent until ${at}`);
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

  /** What a message's outcome holds every sender to: resolves with when that hold ends, if it began one. */
  async function after(outcome: PaceOutcome): Promise<number | undefined> {
    if (outcome === "sent" || outcome === "refused") deferred = 0;
    else if (outcome === "transient" && ++deferred >= deferredInARow) {
      deferred = 0;
      await hold("down", undefined, `${deferredInARow} recipients in a row were deferred`);
    } else if (outcome === "throttle" || outcome === "quota" || outcome === "down") return hold(outcome);
    return undefined;
  }

  return { heldNow, readHold, hold, endDownHold, after };
}
