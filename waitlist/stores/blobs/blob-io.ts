import type { Store } from "@netlify/blobs";
import pLimit from "p-limit";

/*
 * One site-wide store, strong consistency. Every change of a blob is a compare-and-swap (the ETag of its read, or
 * onlyIfNew): of two writers one wins, the other reads again, as test/support/blobs-server.mjs enforces.
 */

/** Reads and writes at once, for the sweep and the founders' commands: each a round trip of tens of milliseconds. */
export const concurrency = 32;
/** Compare-and-swap attempts on a key: one that gives up saw 31 others land (a ledger blob's leaves, a sweep). */
export const maxAttempts = 32;
/** The wait before an attempt after `refusals`: random, up to 5 ms doubled with each, at most 100 ms. */
const afterRefusals = (refusals: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 5 * 2 ** refusals)));

export class BlobsStoreError extends Error {}

/** `work` on each of `items`, `concurrency` at a time. */
export function atOnce<T, R>(items: readonly T[], work: (item: T, n: number) => Promise<R>): Promise<R[]> {
  const limit = pLimit(concurrency);
  return Promise.all(items.map((item, n) => limit(() => work(item, n))));
}

/** A key as an error shows it: a digest cut to its first 8 characters. */
const shown = (key: string) => key.replace(/([0-9a-f]{8})[0-9a-f]{24,}/, "$1…");

/** The reads and conditional writes of one blob that every part of the store makes, over its Store and clock. */
export class BlobIO {
  constructor(
    readonly blobs: Store,
    readonly clock: () => Date,
  ) {}
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
  /** A JSON blob as read, or null. */
  get = async <T>(key: string) => (await this.blobs.get(key, { type: "json", consistency: "strong" })) as T | null;
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
  /** Every key under `prefix`, in one listing. */
  keys = async (prefix: string) => (await this.blobs.list({ prefix })).blobs.map(({ key }) => key);
  /** The day's passes: each blob under `prefix` read, `concurrency` at a time, none past `deadline`; deleted if `over`. */
  async deleteOver<T>(prefix: string, over: (found: T) => boolean, deadline = Infinity): Promise<void> {
    await atOnce(await this.keys(prefix), async (key) => {
      if (this.clock().getTime() > deadline) return;
      const found = await this.get<T>(key);
      if (found !== null && over(found)) await this.blobs.delete(key);
    });
  }
  /** Deletes `keys`, `concurrency` at a time, starting none past `deadline` (ms on the store's clock). */
  async deleteUntil(keys: readonly string[], deadline = Infinity): Promise<void> {
    await atOnce(keys, async (key) => this.clock().getTime() <= deadline && (await this.blobs.delete(key)));
  }
}
