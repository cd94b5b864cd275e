import pLimit from "p-limit";
import type { ConfirmationQueue, OwedConfirmation, RemovedSignup, UnconfirmedSignup } from "../store";
import type { Ledger } from "./ledger";
import { concurrency, hashOf, hourOf, leavingMark, owes, type Records } from "./records";

/*
 * What the sweep and the retention read and remove: the confirmations owed
 * (the pending/ notes), the signups that never confirmed (the asked/ notes
 * of the hours past the retention), and the mailbox counts of days gone by.
 * Work grows with those backlogs, never with the list.
 */

/** When an asked/ folder's hour is over. */
const hourEnd = (hour: string) => Date.parse(`${hour}:00:00.000Z`) + 3_600_000;

export class Queue implements ConfirmationQueue {
  constructor(
    private readonly records: Records,
    private readonly ledger: Ledger,
  ) {}

  dueConfirmations(now: Date, limit: number): Promise<OwedConfirmation[]> {
    return this.owed(now).then((owed) => owed.slice(0, limit));
  }

  pendingConfirmations(): Promise<OwedConfirmation[]> {
    return this.owed();
  }

  private async owed(due?: Date): Promise<OwedConfirmation[]> {
    const at = due?.toISOString();
    return (await this.records.noted())
      .flatMap(({ found }) => (found && !found.record.leaving ? [found.record] : []))
      .filter(
        (record) =>
          owes(record) &&
          (at === undefined ||
            ((record.claimedUntil === null || record.claimedUntil < at) &&
              (record.confirmationNextAt === null || record.confirmationNextAt <= at))),
      )
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map(({ email, emailKey, createdAt, optInSince, askedAt }) => ({
        email,
        emailKey,
        createdAt,
        optInSince: askedAt ?? optInSince,
      }));
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

  /** One listing of the kept digests' days, and the days gone by deleted. */
  async forgetLeaverDigestsBefore(before: Date): Promise<void> {
    const { blobs } = this.records;
    const day = before.toISOString().slice(0, 10);
    const { directories } = await blobs.list({ prefix: "leavers/", directories: true });
    for (const folder of directories.filter((name) => name.slice("leavers/".length) < day)) {
      const { blobs: digests } = await blobs.list({ prefix: `${folder}/` });
      for (const { key } of digests) await blobs.delete(key);
    }
  }

  async forgetMailboxMailBefore(day: string): Promise<void> {
    const { blobs } = this.records;
    const { directories } = await blobs.list({ prefix: "mailbox/", directories: true });
    for (const folder of directories.filter((name) => name.slice("mailbox/".length) < day)) {
      const { blobs: counts } = await blobs.list({ prefix: `${folder}/` });
      for (const { key } of counts) await blobs.delete(key);
    }
  }
}
