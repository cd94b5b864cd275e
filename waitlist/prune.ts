import { site } from "../config/site";
import { sendFoundersDigest } from "./reports/daily-digest";
import { leaverDigestRetentionMs, letInRetentionMs, unconfirmedRetentionMs } from "./signup-life/rules";
import { undeliverableRetentionMs } from "./signup-life/rules";
import { mailDay } from "./mail/mailbox";
import { mailEventIdRetentionMs, mailEventOncePrefix } from "./mail-events/act";
import type { FullStore } from "./stores/store";
import { redactAddresses } from "./mail/redact";
import type { RemovedSignup } from "./signup-life/types";

/*
 * Unconfirmed addresses are not kept forever: a signup asked to confirm
 * (Signup.optInSince) that has not, that long after, is removed as any leave
 * is, and counted as "pruned". Signups from before the confirm step, never
 * asked, are left alone. Once a day, too: the entries of people let in past
 * their days after their wave ("after-wave"), and of members whose mail
 * bounced for good past their days after the bounce ("undeliverable"). The stores find them without reading the list
 * (expiredUnconfirmed): the founders' `prune` command, npm start's hourly pass
 * and every Netlify sweep share this.
 */

/** What the retention's pass asks of a store. */
type PrunedStore = Pick<
  FullStore,
  | "expiredUnconfirmed"
  | "expiredUnconfirmedTidying"
  | "removeUnconfirmed"
  | "pastItsWave"
  | "removeAfterWave"
  | "undeliverableBefore"
  | "removeUndeliverable"
  | "forgetMailboxMailBefore"
  | "forgetLeaverDigestsBefore"
  | "forgetSuppressionsBefore"
  | "forgetOnceBefore"
>;

export interface Pruned {
  /** Signups asked before this time and still unconfirmed are the ones removed. */
  cutoff: string;
  addresses: RemovedSignup[];
  /** Entries of people let in longer ago than the Privacy Policy keeps them (the day's pass only). */
  afterWave: { email: string; createdAt: string }[];
  /** Entries of members whose mail bounced for good longer ago than the Privacy Policy keeps them (the day's pass). */
  undeliverable: { email: string; createdAt: string }[];
  /** True when `limit` or the deadline stopped it with more to remove: the next pass goes on. */
  more: boolean;
}

/**
 * Signups removed in one go, by default: on Netlify Blobs, the ledger blobs they are in are rewritten once per batch.
 * Netlify's scheduled runs take fewer (netlify/sweep.ts): a batch is not stopped by the deadline, and each of its
 * steps waits for its slowest round trip.
 */
const defaultBatchSize = 250;

/**
 * Removes (or with dryRun, only lists) signups asked to confirm before
 * `now - olderThanMs` that have not, at most `limit`, in batches, starting
 * no batch after `deadline` (ms since the epoch).
 */
export async function pruneUnconfirmed(
  store: PrunedStore,
  {
    olderThanMs = unconfirmedRetentionMs,
    now = new Date(),
    dryRun = false,
    limit = Infinity,
    deadline = Infinity,
    clock = Date.now,
    forget = () => {},
    daysGoneBy = true,
    batchSize = defaultBatchSize,
  }: {
    olderThanMs?: number;
    now?: Date;
    dryRun?: boolean;
    limit?: number;
    deadline?: number;
    clock?: () => number;
    /** Deletes the copies of a removed address's mail that the mailer keeps (Mailer.forget). */
    forget?: (email: string) => void;
    /** Whether the mailbox counts and leavers' digests of the days gone by go too: once a day is enough. */
    daysGoneBy?: boolean;
    /** Signups found and removed in one go. */
    batchSize?: number;
  } = {},
): Promise<Pruned> {
  const before = new Date(now.getTime() - olderThanMs);
  const cutoff = before.toISOString();
  if (dryRun) {
    const found = await store.expiredUnconfirmed(before, limit);
    const addresses = found.map(({ emailKey: _key, ...address }) => address);
    return { cutoff, addresses, afterWave: [], undeliverable: [], more: false };
  }
  const afterWave: Pruned["afterWave"] = [];
  const undeliverable: Pruned["undeliverable"] = [];
  // The per-mailbox counts of the days before yesterday (UTC) count against nothing any more, the digests of those
  // who left whose days are over match no launch tool's member any more (leavers.ts), and the fingerprints of
  // mailboxes whose mail bounced or was marked as spam hold nothing back once their days are over.
  if (daysGoneBy) {
    await store.forgetMailboxMailBefore(mailDay(new Date(now.getTime() - 86_400_000)), { deadline });
    await store.forgetLeaverDigestsBefore(new Date(now.getTime() - leaverDigestRetentionMs), { deadline });
    await store.forgetSuppressionsBefore(now, { deadline });
    // The providers' event ids, past the days an event is acted on (mail-events/act.ts).
    await store.forgetOnceBefore(mailEventOncePrefix, new Date(now.getTime() - mailEventIdRetentionMs), { deadline });
    /** Removes what `next` finds, a batch at least; more while whole batches come and the deadline allows. */
    const inBatches = async <T extends { email: string }>(next: () => Promise<T[]>, into: T[]) => {
      for (;;) {
        const removed = await next();
        for (const { email } of removed) forget(email);
        into.push(...removed);
        if (removed.length < batchSize || clock() > deadline) break;
      }
    };
    // The entries of people let in longer ago than the policy keeps them after their wave (pastItsWave).
    const waveCutoff = new Date(now.getTime() - letInRetentionMs);
    await inBatches(async () => store.removeAfterWave(await store.pastItsWave(waveCutoff, batchSize), now), afterWave);
    // The entries of members whose mail bounced for good longer ago than the policy keeps them (pastUndeliverable).
    const bounceCutoff = new Date(now.getTime() - undeliverableRetentionMs);
    await inBatches(
      async () => store.removeUndeliverable(await store.undeliverableBefore(bounceCutoff, batchSize), now),
      undeliverable,
    );
  }
  const addresses: Pruned["addresses"] = [];
  for (;;) {
    const room = limit - addresses.length;
    if (room <= 0 || clock() > deadline) return { cutoff, addresses, afterWave, undeliverable, more: true };
    const batch = await store.expiredUnconfirmedTidying(before, Math.min(room, batchSize));
    if (batch.length === 0) return { cutoff, addresses, afterWave, undeliverable, more: false };
    const removed = await store.removeUnconfirmed(batch, now);
    for (const { email } of removed) forget(email);
    addresses.push(...removed);
    // Nothing of the batch removed (all confirmed or asked again meanwhile, or gone): stop, the next pass goes on.
    if (removed.length === 0) return { cutoff, addresses, afterWave, undeliverable, more: true };
  }
}

/** "30d" or "12h" as milliseconds; undefined for anything else. */
export function parseAge(text: string | undefined): number | undefined {
  const match = /^(\d{1,4})([dh])$/.exec(text ?? "");
  if (!match) return undefined;
  return Number(match[1]) * (match[2] === "d" ? 86_400_000 : 3_600_000);
}

/**
 * npm start's pass: unconfirmed signups older than the retention the Privacy
 * Policy states are removed at start-up, then every hour, and the founders'
 * digest sent once a day (reports/daily-digest.ts: the store keeps it to once, whatever the
 * number of servers). Returns the first pass, and a stop function for shutdown.
 */
export function pruneHourly(
  store: PrunedStore & Parameters<typeof sendFoundersDigest>[0]["store"],
  {
    forget,
    digest,
    log = (line) => console.log(line),
  }: {
    forget?: (email: string) => void;
    /** The founders' digest: who gets it (FOUNDERS_DIGEST_TO), through which mailer, for which site. */
    digest?: Omit<Parameters<typeof sendFoundersDigest>[0], "store" | "now">;
    log?: (line: string) => void;
  } = {},
): { first: Promise<void>; stop: () => void } {
  const pass = async () => {
    try {
      const { addresses, afterWave, undeliverable } = await pruneUnconfirmed(store, { forget });
      if (addresses.length > 0) {
        log(
          `Removed ${addresses.length} signup(s) never confirmed within ${site.waitlist.unconfirmedRetentionDays} days.`,
        );
      }
      if (afterWave.length > 0) {
        log(`Removed ${afterWave.length} entries of people let in over ${site.waitlist.letInRetentionDays} days ago.`);
      }
      if (undeliverable.length > 0) {
        const days = site.waitlist.undeliverableRetentionDays;
        log(`Removed ${undeliverable.length} entries of members whose mail bounced for good over ${days} days ago.`);
      }
    } catch (error) {
      log(`Could not remove the signups never confirmed: ${redactAddresses((error as Error).message)}`);
    }
    if (digest) {
      await sendFoundersDigest({ ...digest, store }).then(
        (sent) => sent && log(`Sent the founders' digest to ${digest.to.length} address(es).`),
        // The mail server's words may quote a founder's address: logs hold none.
        (error: Error) => log(`Could not send the founders' digest: ${redactAddresses(error.message)}`),
      );
    }
  };
  const first = pass();
  const timer = setInterval(() => void pass(), 3_600_000);
  timer.unref();
  return { first, stop: () => clearInterval(timer) };
}
