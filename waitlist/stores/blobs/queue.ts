import pLimit from "p-limit";
import type { ConfirmationQueue, OwedConfirmation, RemovedSignup, UnconfirmedSignup } from "../store";
import type { Ledger } from "./ledger";
import { concurrency, hashOf, hourOf, leavingMark, owes, type BlobRecord, type Records } from "./records";

/*
 * What the sweep and the retention read and remove: the confirmations owed
 * (the pending/ notes), the signups that never confirmed (the asked/ notes
 * of the hours past the retention), and the mailbox counts of days gone by.
 * Work grows with those backlogs, never with the list.
 */

/** When an asked/ folder's hour is over. */
const hourEnd = (hour: string) => Date.parse(`${hour}:00:00.000Z`) + 3_600_000;

/** Records one call of dueConfirmations reads at most: a second or two of round trips. */
const readsPerCall = 1000;
/** How long a walk of the backlog's listing is followed before it is listed afresh. */
const walkLifeMs = 60_000;

/** Whether an owed record is due at `at`: nobody holds it, and its retry time has come. */
const isDue = (record: BlobRecord, at: string) =>
  (record.claimedUntil === null || record.claimedUntil < at) &&
  (record.confirmationNextAt === null || record.confirmationNextAt <= at);

const owedOf = ({ email, emailKey, createdAt, optInSince, askedAt }: BlobRecord): OwedConfirmation => ({
  email,
  emailKey,
  createdAt,
  optInSince: askedAt ?? optInSince,
});

export class Queue implements ConfirmationQueue {
  /** This instance's walk of the backlog (dueConfirmations). */
  private walk: { notes: [string, string[]][]; next: number; listedAt: number } | undefined;

  constructor(
    private readonly records: Records,
    private readonly ledger: Ledger,
  ) {}

  /**
   * Up to `limit` confirmations due at `now`, oldest first among those read: the records of the pending notes, read
   * a page at a time along a walk of the backlog (Records.noteWalk) that the calls of one instance share, each call
   * going on where the last stopped, and reading `readsPerCall` records at most. Work grows with what is sent,
   * never with the backlog: a walk over notes that owe nothing yet (sent, waiting for the fold, or due later) ends
   * the call early, and the next sweep starts elsewhere.
   */
  async dueConfirmations(now: Date, limit: number): Promise<OwedConfirmation[]> {
    const at = now.toISOString();
    const due: BlobRecord[] = [];
    // A walk an earlier call finished: this one walks the backlog afresh.
    if (this.walk && this.walk.next >= this.walk.notes.length) this.walk = undefined;
    for (let read = 0; due.length < limit && read < readsPerCall;) {
      const page = await this.nextPage(Math.min(limit - due.length, readsPerCall - read));
      if (page.length === 0) break;
      read += page.length;
      for (const { found } of await this.records.readNoted(page)) {
        const record = found?.record;
        if (record && !record.leaving && owes(record) && isDue(record, at)) due.push(record);
      }
    }
    return due.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(owedOf);
  }

  /** The next `size` noted addresses of this instance's walk; a new walk once the last is a minute old. */
  private async nextPage(size: number): Promise<[string, string[]][]> {
    const now = this.records.clock().getTime();
    // This call's walk is done: it reads no note twice.
    if (this.walk && this.walk.next >= this.walk.notes.length) return [];
    if (!this.walk || now - this.walk.listedAt > walkLifeMs) {
      this.walk = { notes: await this.records.noteWalk(), next: 0, listedAt: now };
    }
    const page = this.walk.notes.slice(this.walk.next, this.walk.next + size);
    this.walk.next += page.length;
    return page;
  }

  /** Every confirmation owed, due or not, oldest first: for the founders' resend-pending, a whole-backlog read. */
  async pendingConfirmations(): Promise<OwedConfirmation[]> {
    return (await this.records.noted())
      .flatMap(({ found }) => (found && !found.record.leaving && owes(found.record) ? [found.record] : []))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map(owedOf);
  }

  /**
   * From the asked/ notes of the hours over before `before`, oldest first:
   * each note's record, when it is still unconfirmed and was asked in that
   * hour and before `before`, or is leaving (a removal that stopped half-way,
   * for removeUnconfirmed() to finish). A note whose record confirmed, left
   * or was asked again later is done with, and with `tidy` (a removing
   * pass, never a dry run) deleted. Reads no more notes than it needs to
   * find `limit`.
   */
  async expiredUnconfirmed(
    before: Date,
    limit: number,
    { tidy = false }: { tidy?: boolean } = {},
  ): Promise<UnconfirmedSignup[]> {
    const { blobs } = this.records;
    const cutoff = before.toISOString();
    const { directories } = await blobs.list({ prefix: "asked/", directories: true });
    const hours = directories
      .map((folder) => folder.replace(/\/$/, "").slice("asked/".length))
      .filter((hour) => /^\d{4}-\d\d-\d\dT\d\d$/.test(hour) && hourEnd(hour) <= before.getTime())
      .sort();
    const expired: UnconfirmedSignup[] = [];
    const reads = pLimit(concurrency);
    const check = async (hour: string, key: string) => {
      const record = (await this.records.read(key.slice(key.lastIndexOf("/") + 1)))?.record;
      const due =
        record !== undefined &&
        record.optInSince !== null &&
        hourOf(record.optInSince) === hour &&
        (record.leaving !== null || (record.confirmedAt === null && record.optInSince < cutoff));
      if (!due && tidy) await blobs.delete(key);
      return due ? [record] : [];
    };
    for (const hour of hours) {
      // A page of notes at a time (a viral hour holds many), and of a page only as many as are still wanted.
      for await (const { blobs: notes } of blobs.list({ prefix: `asked/${hour}/`, paginate: true })) {
        for (let from = 0; from < notes.length && expired.length < limit;) {
          const slice = notes.slice(from, from + Math.max(limit - expired.length, concurrency));
          from += slice.length;
          const checked = await Promise.all(slice.map(({ key }) => reads(() => check(hour, key))));
          for (const { email, emailKey, createdAt, optInSince } of checked.flat()) {
            expired.push({ email, emailKey, createdAt, optInSince: optInSince! });
          }
        }
        if (expired.length >= limit) break;
      }
      if (expired.length >= limit) break;
    }
    return expired.sort((a, b) => a.optInSince.localeCompare(b.optInSince)).slice(0, limit);
  }

  /**
   * remove() for many at once, for the retention: each only if it is still
   * unconfirmed and asked when it was found; a leave that stopped half-way is
   * finished as it is. Marked as leaving, its left/ note, its ledger row, with
   * the rows of one blob erased in one write (a thousand removals rewrite a blob once, not a
   * thousand times). A pass that dies half-way leaves records marked as
   * leaving with their asked/ notes, which the next pass finds and finishes.
   */
  async removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> {
    const limit = pLimit(concurrency);
    const marked = await Promise.all(
      signups.map(({ emailKey, optInSince }) =>
        limit(async () => {
          const h = hashOf(emailKey);
          const written = await this.records.update(h, (record) =>
            record.confirmedAt === null && record.optInSince === optInSince
              ? { ...record, leaving: leavingMark(at, "pruned") }
              : undefined,
          );
          if (written) return { h, record: written };
          const half = await this.records.read(h);
          return half?.record.leaving ? { h, record: half.record } : undefined;
        }),
      ),
    );
    const leaving = marked.filter((entry) => entry !== undefined);
    // The left/ notes of those marked, before their rows are erased: a fold writing a row after that erases it
    // again (fold() in ledger.ts). Only theirs: a note for a signup that stays would have a fold erase its row.
    await Promise.all(
      leaving.map(({ h, record }) => limit(() => this.records.leftNote(h, Date.parse(record.leaving!.at)))),
    );
    const byChunk = new Map<string, (readonly [string, number])[]>();
    for (const { h, record } of leaving) {
      if (record.chunk) {
        byChunk.set(record.chunk, [...(byChunk.get(record.chunk) ?? []), [h, Date.parse(record.leaving!.at)]]);
      }
    }
    await Promise.all([...byChunk].map(([chunk, rows]) => this.ledger.eraseRows(chunk, rows)));
    return Promise.all(
      leaving.map(({ h, record }) =>
        limit(async () => ({
          ...(await this.records.erase(h, record)),
          // Found by its asked/ note, so asked; the signup's time only for a record of another shape.
          optInSince: record.optInSince ?? record.createdAt,
        })),
      ),
    );
  }

  /** The digests of the days before `before`'s deleted, until `deadline`: what is left, the next pass's. */
  async forgetLeaverDigestsBefore(before: Date, { deadline }: { deadline?: number } = {}): Promise<void> {
    await this.forgetDaysBefore("leavers/", before.toISOString().slice(0, 10), deadline);
  }

  /** The mailbox counts of the days before `day`: 256 blobs a day at most (records.ts's mailbox/). */
  async forgetMailboxMailBefore(day: string, { deadline }: { deadline?: number } = {}): Promise<void> {
    await this.forgetDaysBefore("mailbox/", day, deadline);
  }

  /** Deletes the blobs of `prefix`'s day folders before `day`, oldest first, `concurrency` at a time until `deadline`. */
  private async forgetDaysBefore(prefix: string, day: string, deadline?: number): Promise<void> {
    const { blobs } = this.records;
    const { directories } = await blobs.list({ prefix, directories: true });
    for (const folder of directories.filter((name) => name.slice(prefix.length) < day).sort()) {
      const { blobs: old } = await blobs.list({ prefix: `${folder}/` });
      await this.records.deleteUntil(
        old.map(({ key }) => key),
        deadline,
      );
      if (deadline !== undefined && this.records.clock().getTime() > deadline) return;
    }
  }
}
