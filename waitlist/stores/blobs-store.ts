import type { Store } from "@netlify/blobs";
import * as life from "../signup-life/signup-life";
import type { SignupRecord } from "../signup-life/signup-life";
import { carryForward, upgraded } from "./blobs/earlier-layout";
import { ledgerRow, type LedgerOptions } from "./blobs/ledger";
import { RequestPath } from "./blobs/request-path";
import { atOnce, concurrency, hourOf, type BlobRecord } from "./blobs/records";
import { noteSigner, signerProblem } from "./blobs/secrets";
import type { ConfirmationQueue, FullStore, OwedConfirmation, RemovedSignup, UnconfirmedSignup } from "./store";

export { BlobsStoreError, keyOf, mailboxCountsKey } from "./blobs/records";
export { rowsPerChunk } from "./blobs/ledger";
export const blobsStoreName = "waitlist";

/*
 * The waitlist in Netlify Blobs (README.md has its keys): records kept by key, changed only by signup-life's
 * transitions. One class in layers, a file each in blobs/ (records.ts, ledger.ts, request-path.ts), and here the
 * sweep's and the retention's backlogs, each read a batch at a time, and the founders' whole-list reads.
 */

/**
 * Records one call of dueConfirmations reads at most, a second or two of round trips, once it has found one due: past
 * them, one that found none reads on until its `readUntil`. The notes of the records a sweep sent stay until a fold
 * reaches them, so after a mail outage most of a walk can be of records owing nothing: stopping at a batch's worth
 * with none found ended half the sweeps of a full-scale outage at 6 s, with thousands still owed further along.
 */
const readsPerCall = 1000;
/** How long a walk of the backlog's listing is followed before it is listed afresh. */
const walkLifeMs = 60_000;
/** When an asked/ folder's hour is over. */
const hourEnd = (hour: string) => Date.parse(`${hour}:00:00.000Z`) + 3_600_000;
const oldestFirst = (records: BlobRecord[]) => records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));

export class BlobsStore extends RequestPath implements FullStore, ConfirmationQueue {
  /** This instance's walk of the backlog (dueConfirmations). */
  private walk: { notes: [string, string[]][]; next: number; listedAt: number } | undefined;
  private readonly readsPerCall: number;

  constructor(
    blobs: Store,
    { readsPerCall: reads = readsPerCall, ...options }: LedgerOptions & { readsPerCall?: number } = {},
  ) {
    super(blobs, options);
    this.readsPerCall = reads;
  }

  /**
   * Up to `limit` due, oldest first of those read: noted records along a walk of the backlog that an instance's
   * calls share, `readsPerCall` at most, or more until `readUntil` while none is found; a walk done or a minute old is
   * listed afresh. Each of the readers takes the walk's next note as its last read ends: a slow read (a 503 retried
   * after 5 s) holds one reader, not a page.
   */
  async dueConfirmations(
    now: Date,
    limit: number,
    { readUntil = -Infinity }: { readUntil?: number } = {},
  ): Promise<OwedConfirmation[]> {
    const at = this.clock().getTime();
    if (!this.walk || this.walk.next >= this.walk.notes.length || at - this.walk.listedAt > walkLifeMs) {
      this.walk = { notes: await this.noteWalk(), next: 0, listedAt: at };
    }
    const { walk } = this;
    const due: BlobRecord[] = [];
    const batchEnd = walk.next + this.readsPerCall;
    const more = () =>
      walk.next < walk.notes.length &&
      (walk.next < batchEnd || (due.length === 0 && this.clock().getTime() <= readUntil));
    let reading = 0;
    const reader = async () => {
      while (due.length + reading < limit && more()) {
        reading++;
        const record = (await this.readNoted([walk.notes[walk.next++]!]))[0]?.record;
        reading--;
        if (record && !record.leaving && life.isDue(record, now)) due.push(record);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, reader));
    return oldestFirst(due).map(life.owedOf);
  }

  /** Every confirmation owed, due or not, oldest first: for the founders' resend-pending, a whole-backlog read. */
  async pendingConfirmations(): Promise<OwedConfirmation[]> {
    const noted = await this.readNoted(await this.noteWalk());
    return oldestFirst(
      noted.flatMap(({ record }) => (record && !record.leaving && life.owes(record) ? [record] : [])),
    ).map(life.owedOf);
  }

  /**
   * From the asked/ notes of the hours over, a page at a time and no more than needed: each record expired in its
   * note's hour, or leaving (a removal half done). With `tidy` (never a dry run) a note done with is deleted.
   */
  async expiredUnconfirmed(before: Date, limit: number, { tidy = false } = {}): Promise<UnconfirmedSignup[]> {
    const { directories } = await this.blobs.list({ prefix: "asked/", directories: true });
    const hours = directories
      .map((folder) => folder.replace(/\/$/, "").slice("asked/".length))
      .filter((hour) => /^\d{4}-\d\d-\d\dT\d\d$/.test(hour) && hourEnd(hour) <= before.getTime())
      .sort();
    const expired: UnconfirmedSignup[] = [];
    const check = async (hour: string, key: string) => {
      const record = await this.read(key.slice(key.lastIndexOf("/") + 1));
      if (
        record?.optInSince &&
        hourOf(record.optInSince) === hour &&
        (record.leaving || life.expired(record, before))
      ) {
        const { email, emailKey, createdAt, optInSince } = record;
        expired.push({ email, emailKey, createdAt, optInSince });
      } else if (tidy) await this.blobs.delete(key);
    };
    for (const hour of hours) {
      for await (const { blobs: notes } of this.blobs.list({ prefix: `asked/${hour}/`, paginate: true })) {
        for (let from = 0; from < notes.length && expired.length < limit;) {
          const slice = notes.slice(from, (from += Math.max(limit - expired.length, concurrency)));
          await atOnce(slice, ({ key }) => check(hour, key));
        }
        if (expired.length >= limit) break;
      }
      if (expired.length >= limit) break;
    }
    return expired.sort((a, b) => a.optInSince.localeCompare(b.optInSince)).slice(0, limit);
  }

  /**
   * remove() for many, each only if still expired as found, the rows of one ledger blob erased in one write. A pass
   * that dies half-way leaves records marked with their asked/ notes, which the next pass finds and finishes.
   */
  async removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> {
    const marked = await atOnce(signups, async ({ emailKey, optInSince }) => {
      const k = await this.key(emailKey);
      const record = await this.markLeaving(k, "pruned", at, { still: (one) => life.stillExpired(one, optInSince) });
      return record && { k, record, leftAt: Date.parse(record.leaving!.at) };
    });
    const leaving = marked.filter((one) => one !== undefined);
    // The left/ notes first: a fold writing a row after it is erased erases it again.
    await atOnce(leaving, ({ k, leftAt }) => this.leftNote(k, leftAt));
    const byChunk = new Map<string, [string, number][]>();
    for (const { k, record, leftAt } of leaving) {
      if (record.chunk) byChunk.set(record.chunk, [...(byChunk.get(record.chunk) ?? []), [k, leftAt]]);
    }
    await Promise.all([...byChunk].map(([chunk, rows]) => this.eraseRows(chunk, rows)));
    return atOnce(leaving, async ({ k, record }) => ({
      ...(await this.finishLeave(k, { ...record, chunk: null })),
      optInSince: record.optInSince ?? record.createdAt,
    }));
  }

  /** The leavers' digests of the days before `before`'s, until `deadline`: what is left, the next pass's. */
  async forgetLeaverDigestsBefore(before: Date, { deadline }: { deadline?: number } = {}): Promise<void> {
    await this.forgetDaysBefore("leavers/", before.toISOString().slice(0, 10), deadline);
  }

  /** The mailbox counts of the days before `day`: 256 blobs a day at most. */
  async forgetMailboxMailBefore(day: string, { deadline }: { deadline?: number } = {}): Promise<void> {
    await this.forgetDaysBefore("mailbox/", day, deadline);
  }

  /** Deletes the blobs of `prefix`'s day folders before `day`, oldest first, until `deadline`. */
  private async forgetDaysBefore(prefix: string, day: string, deadline?: number): Promise<void> {
    const { directories } = await this.blobs.list({ prefix, directories: true });
    for (const folder of directories.filter((name) => name.slice(prefix.length) < day).sort()) {
      const { blobs: old } = await this.blobs.list({ prefix: `${folder}/` });
      await this.deleteUntil(
        old.map(({ key }) => key),
        deadline,
      );
      if (deadline !== undefined && this.clock().getTime() > deadline) return;
    }
  }

  // The founders' commands: the list is the ledger's blobs (N/1000 gets) with the noted records read afresh; the
  // departures, one listing of their keys. No request path reaches these.

  /** Every row, oldest first (record-keeper.ts counts the founders' figures from them). */
  protected async records(): Promise<SignupRecord[]> {
    // Records of the earlier layout first, so each is read once, under its <k>.
    while ((await carryForward(this)) > 0);
    const byKey = new Map<string, SignupRecord>();
    for (const rows of await atOnce(await this.chunks(), (chunk) => this.chunkRows(chunk))) {
      for (const [k, row] of Object.entries(rows)) byKey.set(k, upgraded(row as unknown as Record<string, unknown>));
    }
    for (const { k, record } of await this.readNoted(await this.noteWalk())) {
      if (record && !record.leaving) byKey.set(k, ledgerRow(record));
      else byKey.delete(k);
    }
    return [...byKey.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** One listing, each key a day and a digest; the day is the departure's time kept. */
  async leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]> {
    const from = since.toISOString().slice(0, 10);
    return (await this.blobs.list({ prefix: "leavers/" })).blobs
      .map(({ key }) => key.split("/"))
      .filter(([, day]) => day! >= from)
      .map(([, day, digest]) => ({ digest: digest!, leftAt: day! }))
      .sort((a, b) => a.leftAt.localeCompare(b.leftAt));
  }

  /** One listing: each key starts with its departure's time; one from before the how was in its key is read. */
  async departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }> {
    const counts = { left: 0, pruned: 0 };
    const [from, to] = between ? [between.from.toISOString(), between.to.toISOString()] : ["", "~"];
    for (const { key } of (await this.blobs.list({ prefix: "departures/" })).blobs) {
      const at = key.slice("departures/".length, "departures/".length + 24);
      if (at < from || at >= to) continue;
      let how = /^departures\/.{24}-([a-z-]+)-[0-9a-f]{8}$/.exec(key)?.[1];
      how ??= ((await this.blobs.get(key, { type: "json" })) as { how?: string } | null)?.how;
      counts[how === "pruned" ? "pruned" : "left"]++;
    }
    return counts;
  }

  /** Records of the earlier layout carried forward (a page at most), then the backlog filed into the ledger. */
  override async fold(options: { deadline?: number; tidy?: boolean } = {}): Promise<number> {
    await carryForward(this, options.deadline);
    return this.foldLedger(options);
  }

  /** Notes which secret the functions sign links with (blobs/secrets.ts): a function does when it opens the waitlist. */
  noteSigner(configured: string | undefined): Promise<void> {
    return noteSigner(this.blobs, configured);
  }

  signerProblem(configured: string | undefined): Promise<string | undefined> {
    return signerProblem(this.blobs, configured);
  }

  async close(): Promise<void> {}
}
