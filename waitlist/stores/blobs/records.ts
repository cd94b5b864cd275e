import { randomBytes } from "node:crypto";
import type { Store } from "@netlify/blobs";
import pLimit from "p-limit";
import { keyedDigest } from "../../fingerprints";
import { add, owes, type SignupRecord } from "../../signup-life/signup-life";
import { RecordKeeper } from "../record-keeper";
import type { DepartureKind } from "../store";

/*
 * One site-wide store, strong consistency, keys in ../README.md. Every change of a blob is a compare-and-swap (the
 * ETag of its read, or onlyIfNew): of two writers one wins, the other reads again, as test/support/blobs-server.mjs.
 */

/** A record as kept: signup-life's, where the sweep filed its ledger row, and a leave under way. */
export interface BlobRecord extends SignupRecord {
  chunk: string | null;
  /** Set before a leave erases anything; its `id` names the departure, so a leave several finish counts once. */
  leaving: { at: string; how: DepartureKind; id?: string; digest?: string } | null;
}

/** Reads and writes at once, for the sweep and the founders' commands: each a round trip of tens of milliseconds. */
export const concurrency = 32;
/** Compare-and-swap attempts on a key: one that gives up saw 31 others land (a ledger blob's leaves, a sweep). */
export const maxAttempts = 32;
/** The wait before an attempt after `refusals`: random, up to 5 ms doubled with each, at most 100 ms. */
const afterRefusals = (refusals: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 5 * 2 ** refusals)));

/** `work` on each of `items`, `concurrency` at a time. */
export function atOnce<T, R>(items: readonly T[], work: (item: T, n: number) => Promise<R>): Promise<R[]> {
  const limit = pLimit(concurrency);
  return Promise.all(items.map((item, n) => limit(() => work(item, n))));
}

export const recordKey = (k: string) => `records/${k}`;
/** The blob of `day`'s mailbox counts that holds `counter`'s: one for its first two characters, 256 a day at most. */
export const mailboxCountsKey = (day: string, counter: string) => `mailbox/${day}/${counter.slice(0, 2)}`;
/** An address's <k>: its keyed digest under the store's record key (the Netlify bench seeds a store with it). */
export const keyOf = (recordSecret: string, emailKey: string) => keyedDigest(recordSecret, "record", emailKey);
const stamp = (at: Date) => `${String(at.getTime()).padStart(15, "0")}-${randomBytes(4).toString("hex")}`;
/** The UTC hour an asking falls in, as its asked/ folder names it. */
export const hourOf = (iso: string) => iso.slice(0, 13);

export class BlobsStoreError extends Error {}

/** Every field of a record at its starting value: what a record written before a field existed (a wave's) holds. */
const starting = add({ email: "", emailKey: "", source: "netlify", earlier: true }, new Date(0), {
  inviterKnown: false,
});
/**
 * A record as read, with the fields added since it was written at their starting values: a blob is rewritten only
 * by a transition, so a confirmed signup waiting since before waves has no `wave` until one is read this way.
 */
export const filled = <R extends SignupRecord>(record: R): R => ({ ...starting, ...record });

/** A key as an error shows it: a digest cut to its first 8 characters. */
const shown = (key: string) => key.replace(/([0-9a-f]{8})[0-9a-f]{24,}/, "$1…");

/** The store's blobs, clock and record key, and the reads and changes of one blob that every part makes. */
export abstract class Records extends RecordKeeper<BlobRecord> {
  private recordSecret: Promise<string> | undefined;

  constructor(
    readonly blobs: Store,
    readonly clock: () => Date,
  ) {
    super();
  }

  /** An address's <k>, under settings/record-secret, read once an instance. */
  async key(emailKey: string): Promise<string> {
    this.recordSecret ??= this.secret("record", () => randomBytes(32).toString("hex")).catch((error: unknown) => {
      this.recordSecret = undefined;
      throw error;
    });
    return keyOf(await this.recordSecret, emailKey);
  }

  /**
   * settings/<name>-secret (the record key; the links' secret without WAITLIST_SECRET), made once for every instance.
   * A store that makes its record key has no record of the earlier layout to carry forward, unless it lists some.
   */
  async secret(name: "leave" | "record", make: () => string): Promise<string> {
    const key = `settings/${name}-secret`;
    const made = await this.blobs.set(key, make(), { onlyIfNew: true });
    if (name === "record" && made.modified && (await this.blobs.list({ prefix: "signups/" })).blobs.length === 0) {
      await this.blobs.set("settings/layout", "keyed");
    }
    const value = await this.blobs.get(key, { type: "text", consistency: "strong" });
    if (!value) throw new BlobsStoreError(`${key} could not be read back; try again.`);
    return value;
  }

  /** Writes JSON under a condition; an answer without the ETag Netlify gives a write it made is checked by a read. */
  async writeIf(key: string, data: unknown, condition: { onlyIfMatch: string } | { onlyIfNew: true }) {
    const { modified, etag } = await this.blobs.setJSON(key, data, condition);
    if (!modified || etag) return modified;
    if ((await this.blobs.get(key, { type: "text", consistency: "strong" })) === JSON.stringify(data)) return true;
    throw new BlobsStoreError(`Netlify Blobs neither made nor refused a write of ${shown(key)}; try again.`);
  }

  /** A JSON blob and its ETag; netlify dev's sandbox reads none, so there it is listed before and after the read. */
  async readJSON<T>(key: string): Promise<{ data: T; etag: string | undefined } | null> {
    const read = async () => {
      const found = await this.blobs.getWithMetadata(key, { type: "json", consistency: "strong" });
      return found && { data: found.data as T, etag: found.etag };
    };
    const found = await read();
    if (!found || found.etag) return found;
    const listed = async () => (await this.blobs.list({ prefix: key })).blobs.find((blob) => blob.key === key)?.etag;
    for (;;) {
      const before = await listed();
      const again = await read();
      if (!again || !before || before === (await listed())) return again && { ...again, etag: before };
    }
  }

  /** One JSON blob changed by compare-and-swap (`before` runs before the write), read again when another came first. */
  async swap<T>(
    key: string,
    change: (current: T | undefined) => T | undefined,
    before?: (current: T, next: T) => Promise<unknown>,
  ): Promise<T | undefined> {
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      if (attempt > 0) await afterRefusals(attempt);
      const found = await this.readJSON<T>(key);
      const next = change(found ? structuredClone(found.data) : undefined);
      if (next === undefined) return undefined;
      if (found && !found.etag) {
        throw new BlobsStoreError(
          `${shown(key)} was read without an ETag, so it cannot be changed safely; nothing was written. Netlify Blobs gives one with every read: check that NETLIFY_BLOBS_CONTEXT points at it.`,
        );
      }
      if (found && before) await before(found.data, next);
      if (await this.writeIf(key, next, found ? { onlyIfMatch: found.etag! } : { onlyIfNew: true })) return next;
    }
    throw new BlobsStoreError(`${shown(key)} kept changing under ${maxAttempts} writes; try again.`);
  }

  async read(k: string): Promise<BlobRecord | undefined> {
    const record = (await this.blobs.get(recordKey(k), { type: "json", consistency: "strong" })) as BlobRecord | null;
    return record ? filled(record) : undefined;
  }

  /**
   * A listed record, not leaving, through a transition, its notes first: the asked/ note of an asking it begins, and a
   * pending note for the sweep, unless it owes its mail (its note stays until then) or is `noted` already.
   */
  changeAt<R extends BlobRecord>(k: string, transition: (record: R) => R | undefined, { noted = false } = {}) {
    return this.swap<R>(
      recordKey(k),
      (record) => (record && !record.leaving ? transition(filled(record)) : undefined),
      (record, next) =>
        Promise.all([
          !noted && !owes(record) && this.note(k),
          next.optInSince && next.optInSince !== record.optInSince && this.askedNote(k, next.optInSince),
        ]),
    );
  }

  note(k: string): Promise<unknown> {
    return this.blobs.set(`pending/${k}/${stamp(this.clock())}`, "");
  }

  /** That <k> is asked to confirm from `at` on: written before the record says so. */
  askedNote(k: string, at: string): Promise<unknown> {
    return this.blobs.set(`asked/${hourOf(at)}/${k}`, "");
  }

  /** That <k> left at `at` (ms), for a fold under way (ledger.ts). */
  leftNote(k: string, at: number): Promise<unknown> {
    return this.blobs.set(`left/${k}/${String(at).padStart(15, "0")}`, "");
  }

  /** The noted addresses and their notes' keys, from one at random and round: none is always behind the first page. */
  async noteWalk(): Promise<[string, string[]][]> {
    const byKey = new Map<string, string[]>();
    for (const { key } of (await this.blobs.list({ prefix: "pending/" })).blobs) {
      const k = key.split("/")[1]!;
      byKey.set(k, [...(byKey.get(k) ?? []), key]);
    }
    const notes = [...byKey];
    const start = Math.floor(Math.random() * notes.length);
    return [...notes.slice(start), ...notes.slice(0, start)];
  }

  /** The records behind these notes, read `concurrency` at a time (none for one that is gone). */
  readNoted(notes: readonly (readonly [string, string[]])[]): Promise<Noted[]> {
    return atOnce(notes, async ([k, keys]) => {
      const found = await this.readJSON<BlobRecord>(recordKey(k));
      return { k, keys, record: found ? filled(found.data) : undefined, etag: found?.etag };
    });
  }

  /** Deletes `keys`, `concurrency` at a time, starting none past `deadline` (ms on the store's clock). */
  async deleteUntil(keys: readonly string[], deadline = Infinity): Promise<void> {
    await atOnce(keys, async (key) => this.clock().getTime() <= deadline && (await this.blobs.delete(key)));
  }
}

/** A pending note's address, its notes' keys, and its record as read. */
export interface Noted {
  k: string;
  keys: string[];
  record?: BlobRecord;
  etag?: string;
}
