import { owes } from "../../signup-life/rules";
import type { DepartureKind, SignupRecord } from "../../signup-life/types";
import { upgraded } from "../blobs-record-versions";
import { atOnce, type BlobIO } from "./blob-io";
import { hourOf, kOf, layout } from "./layout";

/* One record by its <k>, and the notes written before it changes, by which the sweep and the retention find it. */

/** A record as kept: signup-life's, where the sweep filed its ledger row, and a leave under way. */
export interface BlobRecord extends SignupRecord {
  chunk: string | null;
  /** Set before a leave erases anything; its `id` names the departure, so a leave several finish counts once. */
  leaving: { at: string; how: DepartureKind; id?: string; digest?: string } | null;
}

/** A pending note's address, its notes' keys, and its record as read. */
export type Noted = { k: string; keys: string[]; record?: BlobRecord; etag?: string };

export class Records {
  constructor(private readonly io: BlobIO) {}
  async read(k: string): Promise<BlobRecord | undefined> {
    const record = await this.io.get<Record<string, unknown>>(layout.record(k));
    return record ? (upgraded(record) as BlobRecord) : undefined;
  }
  /**
   * A listed record, not leaving, through a transition, its notes first: the asked/ note of an asking it begins, and a
   * pending note for the sweep, unless it owes its mail (its note stays until then) or is `noted` already.
   */
  change<R extends BlobRecord>(k: string, transition: (record: R) => R | undefined, { noted = false } = {}) {
    return this.io.swap<R>(
      layout.record(k),
      (record) => (record && !record.leaving ? transition(upgraded({ ...(record as BlobRecord) }) as R) : undefined),
      (record, next) =>
        Promise.all([
          !noted && !owes(upgraded({ ...(record as BlobRecord) })) && this.note(k),
          next.optInSince && next.optInSince !== record.optInSince && this.askedNote(k, next.optInSince),
        ]),
    );
  }
  /** A new record, only if none is kept under <k>. */
  create(k: string, record: BlobRecord): Promise<boolean> {
    return this.io.writeIf(layout.record(k), record, { onlyIfNew: true });
  }
  note(k: string): Promise<unknown> {
    return this.io.blobs.set(layout.pending(k, this.io.clock()), "");
  }
  /** That <k> is asked to confirm from `at` on: written before the record says so. */
  askedNote(k: string, at: string): Promise<unknown> {
    return this.io.blobs.set(layout.asked(hourOf(at), k), "");
  }
  /** That <k> left at `at` (ms), for a fold under way (ledger.ts). */
  leftNote(k: string, at: number): Promise<unknown> {
    return this.io.blobs.set(layout.left(k, at), "");
  }
  /** The noted addresses and their notes' keys, from one at random and round: none is always behind the first page. */
  async noteWalk(): Promise<[string, string[]][]> {
    const byKey = new Map<string, string[]>();
    for (const key of await this.io.keys(layout.pendingPrefix)) {
      const k = kOf(key, 1);
      byKey.set(k, [...(byKey.get(k) ?? []), key]);
    }
    const notes = [...byKey];
    const start = Math.floor(Math.random() * notes.length);
    return [...notes.slice(start), ...notes.slice(0, start)];
  }
  /** The records behind these notes, read `concurrency` at a time (none for one that is gone). */
  readNoted(notes: readonly (readonly [string, string[]])[]): Promise<Noted[]> {
    return atOnce(notes, async ([k, keys]) => {
      const found = await this.io.readJSON<Record<string, unknown>>(layout.record(k));
      return { k, keys, record: found ? (upgraded(found.data) as BlobRecord) : undefined, etag: found?.etag };
    });
  }
}
