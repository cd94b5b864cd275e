import pLimit from "p-limit";
import type { Signup } from "../store";
import {
  afterRefusals,
  BlobsStoreError,
  concurrency,
  hashOf,
  maxAttempts,
  owes,
  signupKey,
  unchangedSince,
  type BlobRecord,
  type Noted,
  type Records,
} from "./records";

/*
 * The ledger: the list kept for the founders' commands in ledger/<nnnnnn>
 * blobs of a thousand rows, so a whole-list read costs N/1000 gets. The
 * sweep files noted records into it (fold()); a leave erases its row. Work
 * grows with the backlog of notes and the leaves, never with the list.
 */

/** A ledger row: the signup as the founders' commands read it, and when its retry is due (for `count`). */
export type LedgerRow = Signup & { confirmationNextAt: string | null };

interface Chunk {
  rows: Record<string, LedgerRow>;
}

/** Rows per ledger blob: an export of N signups reads about N/1000 blobs. */
export const rowsPerChunk = 1000;
/** Noted addresses a fold reads and files at once. */
const foldPage = 250;
/** How long a leave's note stays for folding sweeps: any sweep finishes well within it (scheduled functions stop at 30 s). */
const leftNoteMs = 3_600_000;

const chunkName = (seq: number) => String(seq).padStart(6, "0");

/** What a ledger row shows of a record: everything but who holds it and where it is filed. */
export function ledgerRow({
  attempts: _a,
  claimedUntil: _c,
  chunk: _k,
  leaving: _l,
  askedAt: _s,
  announcements: _n,
  ...row
}: BlobRecord): LedgerRow {
  return row;
}

export class Ledger {
  constructor(
    private readonly records: Records,
    private readonly rowsPerChunk: number,
  ) {}

  /**
   * The sweep's bookkeeping, after it has sent what was due: every noted
   * address's row written to the ledger as its record now stands, and the
   * notes of those that owe nothing more removed. A page of notes at a time,
   * along a walk of the backlog (Records.noteWalk), starting no page after
   * `deadline` (ms on the store's clock): work grows with the backlog of
   * notes, never with the list, and a scheduled run does what its time
   * allows, the next one the rest. Returns how many rows it wrote.
   *
   * A leave racing with this: remove() writes left/<h> before it reads the
   * record, so either it sees the chunk this fold gave the record and erases
   * the row itself, or this fold, which lists left/ after writing its rows,
   * sees the note and erases the row. Either way no row outlives its record.
   * A fold that wrote no row has no such leave to look for, and lists left/
   * only with `tidy` (the day's pass, and the founders' commands), which
   * deletes the notes of leaves over an hour old.
   */
  async fold({ deadline = Infinity, tidy = true }: { deadline?: number; tidy?: boolean } = {}): Promise<number> {
    const walk = await this.records.noteWalk();
    const clock = () => this.records.clock().getTime();
    const byChunk = new Map<string, BlobRecord[]>();
    let next: { current: string; room: number } | undefined;
    let written = 0;
    for (let from = 0; from < walk.length && clock() <= deadline; from += foldPage) {
      const noted = await this.records.readNoted(walk.slice(from, from + foldPage));
      // The newest ledger blob and its room, once, and only when a row needs one.
      if (!next && noted.some(({ found }) => found && !found.record.leaving && !found.record.chunk)) {
        const names = await this.chunks();
        const current = names.at(-1) ?? chunkName(1);
        next = {
          current,
          room: this.rowsPerChunk - (names.length > 0 ? Object.keys(await this.chunkRows(current)).length : 0),
        };
      }
      written += await this.foldPage(noted, next, byChunk);
    }
    if (byChunk.size > 0 || tidy) await this.eraseLeftSince(byChunk, tidy ? deadline : -Infinity);
    return written;
  }

  /** One page of a fold: its rows filed and written, its settled notes removed; `byChunk` gathers what it wrote. */
  private async foldPage(
    noted: readonly Noted[],
    next: { current: string; room: number } | undefined,
    byChunk: Map<string, BlobRecord[]>,
  ): Promise<number> {
    const { blobs } = this.records;
    const gone = noted.filter(({ found }) => !found);
    // A leave that stopped half-way (its function died): finished here, as it would have.
    const limitWrites = pLimit(concurrency);
    const halfLeft = noted.filter(({ found }) => found?.record.leaving);
    await Promise.all(halfLeft.map(({ h, found }) => limitWrites(() => this.finishLeave(h, found!.record))));
    const present = noted.flatMap(({ h, keys, found }) =>
      found && !found.record.leaving ? [{ h, keys, ...found }] : [],
    );

    // Rows without a blob yet go to the newest one, then to new ones, a thousand each.
    const assigned = new Map<string, string>();
    for (const { h, record } of present) {
      if (record.chunk || !next) continue;
      if (next.room <= 0) {
        next.current = chunkName(Number(next.current) + 1);
        next.room = this.rowsPerChunk;
      }
      assigned.set(h, next.current);
      next.room--;
    }
    const filed = await Promise.all(
      present.map(({ h, keys, record, etag }) =>
        limitWrites(async () => {
          const chunk = record.chunk ?? assigned.get(h)!;
          if (record.chunk) return { h, keys, record, chunk };
          // File the record under its blob first, so that a leave from now on finds the row.
          if (await this.records.writeIf(signupKey(h), { ...record, chunk }, unchangedSince(etag, signupKey(h)))) {
            return { h, keys, record: { ...record, chunk }, chunk };
          }
          const again = await this.records.update(h, (latest) => (latest.chunk ? latest : { ...latest, chunk }));
          // Not listed any more, or leaving: its leave takes care of the row.
          return again ? { h, keys, record: again, chunk: again.chunk! } : undefined;
        }),
      ),
    );

    // A confirm that died before filing its invite blobs: filed now (idempotent).
    await Promise.all(
      filed.map(
        (entry) => entry && limitWrites(() => this.records.fileInvites(hashOf(entry.record.emailKey), entry.record)),
      ),
    );

    const pageChunks = new Map<string, BlobRecord[]>();
    for (const entry of filed) {
      if (!entry) continue;
      pageChunks.set(entry.chunk, [...(pageChunks.get(entry.chunk) ?? []), entry.record]);
      byChunk.set(entry.chunk, [...(byChunk.get(entry.chunk) ?? []), entry.record]);
    }
    await Promise.all(
      [...pageChunks].map(([chunk, records]) =>
        limitWrites(() =>
          this.changeChunk(chunk, (rows) => {
            for (const record of records) rows[hashOf(record.emailKey)] = ledgerRow(record);
          }),
        ),
      ),
    );

    // Done with: gone, or filed and owing nothing more. Only the notes read above; newer ones stay.
    const settled = [
      ...gone.flatMap(({ keys }) => keys),
      ...halfLeft.flatMap(({ keys }) => keys),
      ...filed.flatMap((entry) => (entry && !owes(entry.record) ? entry.keys : [])),
    ];
    await Promise.all(settled.map((key) => limitWrites(() => blobs.delete(key))));
    return filed.filter(Boolean).length;
  }

  /**
   * Leaves that began while this fold read their records: the rows it may just have written erased. The notes of
   * leaves over an hour ago are deleted too, until `deadline` (none past it): a day's pruning leaves thousands.
   */
  private async eraseLeftSince(byChunk: ReadonlyMap<string, BlobRecord[]>, deadline: number): Promise<void> {
    const { blobs: leftNotes } = await this.records.blobs.list({ prefix: "left/" });
    const now = this.records.clock().getTime();
    const leaving = new Map<string, number>();
    const old: string[] = [];
    for (const { key } of leftNotes) {
      const [, h, at] = key.split("/");
      leaving.set(h!, Math.max(leaving.get(h!) ?? 0, Number(at)));
      if (Number(at) < now - leftNoteMs) old.push(key);
    }
    for (const [chunk, records] of byChunk) {
      const erase = records.flatMap((record) => {
        const at = leaving.get(hashOf(record.emailKey));
        return at === undefined ? [] : [[hashOf(record.emailKey), at] as const];
      });
      if (erase.length > 0) await this.eraseRows(chunk, erase);
    }
    await this.records.deleteUntil(old, deadline);
  }

  /** A leave's end, once the record is marked as leaving: its ledger row erased, then the record (Records.erase). */
  async finishLeave(h: string, record: BlobRecord) {
    if (record.chunk) await this.eraseRows(record.chunk, [[h, Date.parse(record.leaving!.at)]]);
    return this.records.erase(h, record);
  }

  /** Removes rows from one ledger blob: [address hash, left at (ms)]; a row signed up after that stays. */
  async eraseRows(chunk: string, leaving: readonly (readonly [string, number])[]): Promise<void> {
    await this.changeChunk(chunk, (rows) => {
      for (const [h, leftAt] of leaving) {
        const row = rows[h];
        if (row && Date.parse(row.createdAt) <= leftAt) delete rows[h];
      }
    });
  }

  /** The ledger's blobs, oldest first. */
  async chunks(): Promise<string[]> {
    const { blobs } = await this.records.blobs.list({ prefix: "ledger/" });
    return blobs.map(({ key }) => key.slice("ledger/".length)).sort();
  }

  /** One ledger blob's rows, as written (rows from before the confirm step lack its fields: see upgraded()). */
  async chunkRows(chunk: string): Promise<Record<string, LedgerRow>> {
    const found = (await this.records.blobs.get(`ledger/${chunk}`, {
      type: "json",
      consistency: "strong",
    })) as Chunk | null;
    return found?.rows ?? {};
  }

  /** Changes one ledger blob by compare-and-swap; creates it when it does not exist. */
  private async changeChunk(chunk: string, change: (rows: Record<string, LedgerRow>) => void): Promise<number> {
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      if (attempt > 0) await afterRefusals(attempt);
      const found = await this.records.readJSON(`ledger/${chunk}`);
      const rows = ((found?.data as Chunk | undefined)?.rows ?? {}) as Record<string, LedgerRow>;
      change(rows);
      const condition = found ? unchangedSince(found.etag, `ledger/${chunk}`) : { onlyIfNew: true as const };
      if (await this.records.writeIf(`ledger/${chunk}`, { rows } satisfies Chunk, condition)) {
        return Object.keys(rows).length;
      }
    }
    throw new BlobsStoreError(`ledger/${chunk} kept changing under ${maxAttempts} writes; the next sweep tries again.`);
  }
}
