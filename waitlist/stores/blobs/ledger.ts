import { randomBytes } from "node:crypto";
import { leave } from "../../signup-life/signup-life";
import { owes } from "../../signup-life/rules";
import type { DepartureKind, SignupRecord } from "../../signup-life/types";
import { atOnce, type BlobIO } from "./blob-io";
import type { Invites } from "./invites";
import { hourOf, kOf, layout } from "./layout";
import { upgraded } from "../blobs-record-versions";
import type { BlobRecord, Noted, Records } from "./records";

/* The founders' list in blobs of a thousand rows, which the sweep files noted records into; and a leave's end. */

/** Rows per ledger blob: an export of N signups reads about N/1000 blobs. */
export const rowsPerChunk = 1000;
/** Noted addresses a fold reads and files at once. */
const foldPage = 250;
/** How long a leave's note stays for folding sweeps, which end within 30 s. */
const leftNoteMs = 3_600_000;

const chunkName = (seq: number) => String(seq).padStart(6, "0");
/** A ledger blob's rows by <k>. */
type Rows = Record<string, SignupRecord>;

/** What a ledger row shows of a record: all of signup-life's record, not where it is filed nor a leave under way. */
export const ledgerRow = ({ chunk: _chunk, leaving: _leaving, ...row }: BlobRecord): SignupRecord => row;

export class Ledger {
  constructor(
    private readonly io: BlobIO,
    private readonly records: Records,
    private readonly invites: Invites,
    private readonly chunkRowsAtMost = rowsPerChunk,
  ) {}
  /**
   * Noted records' rows written, the notes of those owing nothing removed, a page at a time, none past `deadline`.
   * A racing leave writes left/<k> before it marks the record: it sees the chunk this fold gave the record and erases
   * the row, or this fold, listing left/ after writing, does. With `tidy`, left/ notes over an hour old are deleted.
   */
  async fold({ deadline = Infinity, tidy = true }: { deadline?: number; tidy?: boolean } = {}) {
    const walk = await this.records.noteWalk();
    const written = new Map<string, string[]>();
    let next: { current: string; room: number } | undefined;
    for (let from = 0; from < walk.length && this.io.clock().getTime() <= deadline; from += foldPage) {
      const noted = await this.records.readNoted(walk.slice(from, from + foldPage));
      // The newest ledger blob and its room, once, and only when a row needs one.
      if (!next && noted.some(({ record }) => record && !record.leaving && !record.chunk)) {
        const current = (await this.chunks()).at(-1);
        const used = current ? Object.keys(await this.chunkRows(current)).length : 0;
        next = { current: current ?? chunkName(1), room: this.chunkRowsAtMost - used };
      }
      await this.foldPage(noted, next, written);
    }
    if (written.size > 0 || tidy) await this.eraseLeftSince(written, tidy ? deadline : -Infinity);
    return [...written.values()].reduce((sum, ks) => sum + ks.length, 0);
  }
  /** One page of a fold: its rows filed and written, its settled notes removed; `written` gathers the rows by blob. */
  private async foldPage(
    noted: readonly Noted[],
    next: { current: string; room: number } | undefined,
    written: Map<string, string[]>,
  ) {
    // A leave that stopped half-way (its function died): finished here, as it would have.
    await atOnce(noted, async ({ k, record }) => record?.leaving && this.finishLeave(k, record));
    const chunks = noted.map(({ record }) => {
      if (!record || record.leaving || record.chunk || !next) return record?.chunk;
      if (next.room-- <= 0)
        Object.assign(next, { current: chunkName(Number(next.current) + 1), room: this.chunkRowsAtMost - 1 });
      return next.current;
    });
    const filed = await atOnce(noted, async ({ k, keys, record, etag }, n) => {
      const chunk = chunks[n]!;
      if (!record || record.leaving) return { k, keys, record: undefined };
      // Filed under its blob first, as read if unchanged since, so that a leave from now on finds the row; a confirm
      // that died before filing its invite blobs has them filed now. A new signup's asked/ note is written here, at
      // its first filing, not on its request: the retention reads it a month on (records.ts, add).
      let kept: BlobRecord | undefined = { ...record, chunk };
      if (!record.chunk && record.optInSince) await this.records.askedNote(k, record.optInSince);
      if (!record.chunk && !(await this.io.writeIf(layout.record(k), kept, { onlyIfMatch: etag! }))) {
        kept = await this.records.change(k, (found) => (found.chunk ? found : { ...found, chunk }), { noted: true });
      }
      if (kept) await this.invites.file(k, kept);
      return { k, keys, record: kept };
    });
    const byChunk = new Map<string, { k: string; record: BlobRecord }[]>();
    for (const { k, record } of filed) {
      if (record) byChunk.set(record.chunk!, [...(byChunk.get(record.chunk!) ?? []), { k, record }]);
    }
    await atOnce([...byChunk], async ([chunk, entries]) => {
      await this.io.swap<{ rows: Rows }>(layout.ledger(chunk), (found = { rows: {} }) => {
        for (const { k, record } of entries) found.rows[k] = ledgerRow(record);
        return found;
      });
      written.set(chunk, [...(written.get(chunk) ?? []), ...entries.map(({ k }) => k)]);
    });
    // Done with: gone, or filed and owing nothing more. Only the notes read above; newer ones stay.
    await this.io.deleteUntil(filed.flatMap(({ keys, record }) => (!record || !owes(record) ? keys : [])));
  }
  /** Rows this fold wrote of leaves begun meanwhile erased; notes of leaves over an hour old deleted until `deadline`. */
  private async eraseLeftSince(written: ReadonlyMap<string, string[]>, deadline: number): Promise<void> {
    const now = this.io.clock().getTime();
    const leaving = new Map<string, number>();
    const old: string[] = [];
    for (const key of await this.io.keys(layout.leftPrefix)) {
      const [k, at] = [kOf(key, 1), Number(kOf(key, 2))];
      leaving.set(k, Math.max(leaving.get(k) ?? 0, at));
      if (at < now - leftNoteMs) old.push(key);
    }
    for (const [chunk, ks] of written) {
      const erase = ks.flatMap((k) => (leaving.has(k) ? [[k, leaving.get(k)!] as const] : []));
      if (erase.length > 0) await this.eraseRows(chunk, erase);
    }
    await this.io.deleteUntil(old, deadline);
  }
  /** A leave's end: its row, invite keys, the record, then its asked/ note, by which a pass that died finds it. */
  async finishLeave(k: string, record: BlobRecord) {
    const leaving = record.leaving!;
    const id = leaving.id ?? randomBytes(4).toString("hex");
    if (record.chunk) await this.eraseRows(record.chunk, [[k, Date.parse(leaving.at)]]);
    await Promise.all([
      this.invites.forget(k, record),
      this.io.blobs.setJSON(layout.departure(leaving.at, leaving.how, id), { how: leaving.how }),
      leaving.digest && this.io.blobs.set(layout.leaver(leaving.at.slice(0, 10), leaving.digest), ""),
    ]);
    await this.io.blobs.delete(layout.record(k));
    if (record.optInSince) await this.io.blobs.delete(layout.asked(hourOf(record.optInSince), k));
    return { email: record.email, createdAt: record.createdAt };
  }
  /** <k>'s record marked as leaving (if `still`), or as a leave that stopped half-way left it. */
  async markLeaving(
    k: string,
    how: DepartureKind,
    at: Date,
    { digest, still = () => true }: { digest?: string; still?: (record: BlobRecord) => boolean } = {},
  ): Promise<BlobRecord | undefined> {
    const id = randomBytes(4).toString("hex");
    const mark = (record: BlobRecord) =>
      still(record) ? { ...record, leaving: { ...leave(record, how, at, digest), id } } : undefined;
    const marked = await this.records.change(k, mark, { noted: true });
    const half = marked ? undefined : await this.records.read(k);
    return marked ?? (half?.leaving ? half : undefined);
  }
  /** Removes rows from one ledger blob: [<k>, left at (ms)]; a row signed up after that stays. */
  async eraseRows(chunk: string, leaving: readonly (readonly [string, number])[]): Promise<void> {
    await this.io.swap<{ rows: Rows }>(layout.ledger(chunk), (found) => {
      if (!found) return undefined;
      for (const [k, leftAt] of leaving) {
        if (found.rows[k] && Date.parse(found.rows[k].createdAt) <= leftAt) delete found.rows[k];
      }
      return found;
    });
  }
  /** The ledger's blobs, oldest first. */
  async chunks(): Promise<string[]> {
    return (await this.io.keys(layout.ledgerPrefix)).map((key) => key.slice(layout.ledgerPrefix.length)).sort();
  }
  /** One ledger blob's rows by <k>, each as signup-life's record whenever it was written. */
  async chunkRows(chunk: string): Promise<Rows> {
    const rows = (await this.io.get<{ rows: Record<string, Record<string, unknown>> }>(layout.ledger(chunk)))?.rows;
    return Object.fromEntries(Object.entries(rows ?? {}).map(([k, row]) => [k, upgraded(row)]));
  }
}
