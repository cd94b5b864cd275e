import type { Store } from "@netlify/blobs";
import { expired, isDue, owedOf, owes, pastItsWave, pastUndeliverable, stillExpired } from "../signup-life/rules";
import * as life from "../signup-life/signup-life";
import type { DepartureCounts, DepartureKind, LetInSignup, NewSignup, UndeliverableSignup } from "../signup-life/types";
import type { OwedConfirmation, RemovedSignup } from "../signup-life/types";
import type { MailCounts, MailDay, SignupRecord, SuppressionReason, UnconfirmedSignup } from "../signup-life/types";
import { atOnce, BlobIO, concurrency } from "./blobs/blob-io";
import { Invites } from "./blobs/invites";
import { hourOf, kOf, layout } from "./blobs/layout";
import { Ledger, ledgerRow, rowsPerChunk } from "./blobs/ledger";
import { Records, type BlobRecord } from "./blobs/records";
import { StoreSecrets } from "./blobs/secrets";
import { heldOf, lastUntil, withHeld, type Suppressed } from "./blobs/suppressed";
import { recordKeeper } from "./record-keeper";
import { EarlierLayout } from "./blobs-migrations";
import type { FullStore, StoreSecretName } from "./store";

export { BlobsStoreError } from "./blobs/blob-io";
export { keyOf } from "./blobs/secrets";
export { layout as blobsLayout } from "./blobs/layout";
export { rowsPerChunk };
export const blobsStoreName = "waitlist";
/** The mail pace's shards (mail/pace.ts): a burst's senders spread over eight compare-and-swaps, not one. */
export const blobsPaceShards = 8;

/*
 * The waitlist in Netlify Blobs (README.md has its keys): one object per concern in blobs/, the carrying forward of an
 * earlier layout (blobs-migrations.ts), records changed only by signup-life's transitions (record-keeper.ts). Here: a
 * request's work by key, the sweep's and the retention's backlogs a batch at a time, and the founders' reads.
 */

/**
 * Records one call of dueConfirmations reads once it has found one due; one that found none reads on until its
 * `readUntil`: after a mail outage most notes are of records a sweep sent and a fold has not reached, and stopping at
 * a batch's worth ended half the sweeps at 6 s with thousands owed further along.
 */
const readsPerCall = 1000;
/** How long a walk of the backlog's listing is followed before it is listed afresh. */
const walkLifeMs = 60_000;
const gone = ({ email, createdAt }: { email: string; createdAt: string }) => ({ email, createdAt });
/** Still let in as pastItsWave found it, and not restricted since. */
const stillLetIn = (record: SignupRecord, one: LetInSignup) => !record.restrictedAt && record.letInAt === one.letInAt;
/** Still undeliverable since the bounce undeliverableBefore found, and not restricted since. */
const stillUndeliverable = (record: SignupRecord, one: UndeliverableSignup) =>
  !record.restrictedAt && record.state === "undeliverable" && record.confirmationFailedAt === one.bouncedAt;
type Found = (one: SignupRecord) => boolean;
/** A record the retention found (N/1000 reads of the ledger's rows, a row lagging its record by a sweep), and when. */
const foundAs = <K extends string>({ email, emailKey, createdAt }: SignupRecord, at: string, as: K) =>
  ({ email, emailKey, createdAt, [as]: at }) as Pick<SignupRecord, "email" | "emailKey" | "createdAt"> &
    Record<K, string>;
const oldestFirst = <R extends { createdAt: string }>(records: R[]) =>
  records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));

export interface BlobsStoreOptions {
  clock?: () => Date;
  /** Rows per ledger blob (fewer in tests, to fill several). */
  chunkRows?: number;
  readsPerCall?: number;
}

/** The store interface, and what only this store has: its Store, each address's <k>, the scheduled runs' fold. */
export type BlobsStore = ReturnType<typeof blobsStore>;

export function blobsStore(
  blobs: Store,
  { clock = () => new Date(), chunkRows, readsPerCall: reads = readsPerCall }: BlobsStoreOptions = {},
) {
  const io = new BlobIO(blobs, clock);
  const secrets = new StoreSecrets(io);
  const records = new Records(io);
  const invites = new Invites(io);
  const ledger = new Ledger(io, records, invites, chunkRows);
  const earlier = new EarlierLayout(io, { secrets, records, ledger, invites });

  /** An address's <k>, its record of the earlier layout carried forward first while one may be left. */
  async function located(emailKey: string): Promise<string> {
    if (!earlier.done) await earlier.carryOwn(emailKey);
    return secrets.key(emailKey);
  }

  /** Every row, oldest first: the ledger's blobs (N/1000 gets) with the noted records read afresh. */
  async function allRecords(): Promise<SignupRecord[]> {
    // Records of the earlier layout first, so each is read once, under its <k>.
    while ((await earlier.carryForward()) > 0);
    const byKey = new Map<string, SignupRecord>();
    for (const rows of await atOnce(await ledger.chunks(), (chunk) => ledger.chunkRows(chunk))) {
      for (const [k, row] of Object.entries(rows)) byKey.set(k, row);
    }
    for (const { k, record } of await records.readNoted(await records.noteWalk())) {
      if (record && !record.leaving) byKey.set(k, ledgerRow(record));
      else byKey.delete(k);
    }
    return oldestFirst([...byKey.values()]);
  }

  /** This instance's walk of the backlog (dueConfirmations). */
  let walk: { notes: [string, string[]][]; next: number; listedAt: number } | undefined;

  /** From the asked/ notes of the hours over, a page at a time: each expired, or leaving (a removal half done). */
  async function expiredAmongAsked(before: Date, limit: number, tidy: boolean): Promise<UnconfirmedSignup[]> {
    const { directories } = await blobs.list({ prefix: layout.askedPrefix, directories: true });
    const hours = directories
      .map((folder) => kOf(folder, 1))
      // Each hour that is over.
      .filter((hour) => /^\d{4}-\d\d-\d\dT\d\d$/.test(hour) && Date.parse(`${hour}:59:59.999Z`) < before.getTime())
      .sort();
    const found: UnconfirmedSignup[] = [];
    const check = async (hour: string, key: string) => {
      const record = await records.read(kOf(key, 2));
      if (record?.optInSince && hourOf(record.optInSince) === hour && (record.leaving || expired(record, before))) {
        const { email, emailKey, createdAt, optInSince } = record;
        found.push({ email, emailKey, createdAt, optInSince });
      } else if (tidy) await blobs.delete(key);
    };
    for (const hour of hours) {
      for await (const { blobs: notes } of blobs.list({ prefix: layout.askedHour(hour), paginate: true })) {
        for (let from = 0; from < notes.length && found.length < limit;) {
          const slice = notes.slice(from, (from += Math.max(limit - found.length, concurrency)));
          await atOnce(slice, ({ key }) => check(hour, key));
        }
        if (found.length >= limit) break;
      }
      if (found.length >= limit) break;
    }
    // Those asked first first; of those asked at once, the first signed up first, as SQL's ids have them.
    return found
      .sort((a, b) => a.optInSince.localeCompare(b.optInSince) || a.createdAt.localeCompare(b.createdAt))
      .slice(0, limit);
  }

  /** Deletes the blobs of `prefix`'s day folders before `day`, oldest first, until `deadline`. */
  async function forgetDaysBefore(prefix: string, day: string, deadline?: number): Promise<void> {
    const { directories } = await blobs.list({ prefix, directories: true });
    for (const folder of directories.filter((name) => name.slice(prefix.length) < day).sort()) {
      await io.deleteUntil(await io.keys(`${folder}/`), deadline);
      if (deadline !== undefined && clock().getTime() > deadline) return;
    }
  }

  /** remove() for many, each marked leaving if `still`, a ledger blob's rows erased in one write. */
  async function removeFound<F extends { emailKey: string }>(
    found: readonly F[],
    at: Date,
    how: DepartureKind,
    still: (record: BlobRecord, one: F) => boolean,
  ) {
    const marked = await atOnce(found, async (one) => {
      const k = await located(one.emailKey);
      const record = await ledger.markLeaving(k, how, at, { still: (kept) => still(kept, one) });
      return record && { k, record, leftAt: Date.parse(record.leaving!.at) };
    });
    const leaving = marked.filter((one) => one !== undefined);
    // The left/ notes first: a fold writing a row after it is erased erases it again.
    await atOnce(leaving, ({ k, leftAt }) => records.leftNote(k, leftAt));
    const byChunk = new Map<string, [string, number][]>();
    for (const { k, record, leftAt } of leaving) {
      if (record.chunk) byChunk.set(record.chunk, [...(byChunk.get(record.chunk) ?? []), [k, leftAt]]);
    }
    await Promise.all([...byChunk].map(([chunk, rows]) => ledger.eraseRows(chunk, rows)));
    return atOnce(leaving, async ({ k, record }) => ({
      ...(await ledger.finishLeave(k, { ...record, chunk: null })),
      record,
    }));
  }

  /** What the retention removes: the records `found` by the ledger's rows, `by` the oldest first, each read afresh. */
  async function fromLedger<K extends string>(found: Found, by: "letInAt" | "confirmationFailedAt", as: K, n: number) {
    const rows = (await atOnce(await ledger.chunks(), (chunk) => ledger.chunkRows(chunk))).flatMap(Object.entries);
    const sorted = rows.filter(([, row]) => found(row)).sort(([, a], [, b]) => a[by]!.localeCompare(b[by]!));
    const kept = await atOnce(sorted.slice(0, n), ([k]) => records.read(k));
    return kept.flatMap((one) => (one && !one.leaving && found(one) ? [foundAs(one, one[by]!, as)] : []));
  }

  const store = {
    blobs,
    ...recordKeeper<BlobRecord>({
      change: async (emailKey, transition) => records.change(await located(emailKey), transition),
      records: allRecords,
      record: async (emailKey) => {
        const found = await records.read(await located(emailKey));
        return found && !found.leaving ? ledgerRow(found) : undefined;
      },
      // A confirmed record's invite keys, also after a second press: a confirm that died before filing them.
      confirmed: async (emailKey, record) => invites.file(await located(emailKey), record),
      // An invite objected to or restricted counts no more; one lifted counts again.
      async refiled(emailKey, before, after) {
        const k = await located(emailKey);
        await invites.forget(k, { ...before, inviteCode: null });
        await invites.file(k, after);
      },
    }),
    key: (emailKey: string) => secrets.key(emailKey),
    secret: (name: StoreSecretName, make: () => string) => secrets.secret(name, make),
    /**
     * The note first, whatever fails after; the sweep's fold writes its asked/ note (ledger.ts), one write fewer on
     * the request. A listed address makes the same write, then counts its repeat.
     */
    async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
      const k = await located(entry.emailKey);
      const inviterKnown = entry.invitedBy !== undefined && (await invites.inviter(entry.invitedBy)) !== null;
      const record: BlobRecord = {
        ...life.add(entry, entry.at ?? clock(), { inviterKnown }),
        chunk: null,
        leaving: null,
      };
      await records.note(k);
      const added = await records.create(k, record);
      if (!added) await records.change(k, life.repeat, { noted: true });
      return { added, createdAt: record.createdAt };
    },
    /** The record, and its invitees: one listing under its code. */
    async lookup(emailKey: string) {
      const record = await records.read(await located(emailKey));
      if (!record || record.leaving) return undefined;
      return life.listed(record, record.inviteCode ? await invites.confirmedInvites(record.inviteCode) : 0);
    },
    /** In an order a sweep can finish after a crash: a note for a fold under way, the record marked, then the rest. */
    async remove(emailKey: string, how: DepartureKind, at: Date, digest?: string) {
      const k = await located(emailKey);
      await records.leftNote(k, at.getTime());
      const marked = await ledger.markLeaving(k, how, at, { digest });
      if (!marked) return undefined;
      await records.note(k);
      return ledger.finishLeave(k, marked);
    },
    async countMailboxMail(counter: string, day: string): Promise<number> {
      const counts = await io.swap<Record<string, number>>(layout.mailboxCounts(day, counter), (found = {}) => ({
        ...found,
        [counter]: (found[counter] ?? 0) + 1,
      }));
      return counts![counter]!;
    },
    /** Of instances racing, one write is made (Netlify's onlyIfNew). */
    once: (name: string) => io.writeIf(layout.setting(`once-${name}`), clock().toISOString(), { onlyIfNew: true }),
    forgetOnce: (name: string) => blobs.delete(layout.setting(`once-${name}`)),
    forgetOnceBefore: (prefix: string, before: Date, { deadline }: { deadline?: number } = {}) =>
      io.deleteOver<string>(layout.setting(`once-${prefix}`), (at) => at < before.toISOString(), deadline),
    /**
     * Noted records along a walk of the backlog an instance's calls share, listed afresh when done or a minute old;
     * each reader takes the next note as its last read ends: a slow read (a 503 retried after 5 s) holds one reader.
     */
    async dueConfirmations(now: Date, limit: number, { readUntil = -Infinity } = {}): Promise<OwedConfirmation[]> {
      const at = clock().getTime();
      if (!walk || walk.next >= walk.notes.length || at - walk.listedAt > walkLifeMs) {
        walk = { notes: await records.noteWalk(), next: 0, listedAt: at };
      }
      const current = walk;
      const due: BlobRecord[] = [];
      const batchEnd = current.next + reads;
      const more = () =>
        current.next < current.notes.length &&
        (current.next < batchEnd || (due.length === 0 && clock().getTime() <= readUntil));
      let reading = 0;
      const reader = async () => {
        while (due.length + reading < limit && more()) {
          reading++;
          const record = (await records.readNoted([current.notes[current.next++]!]))[0]?.record;
          reading--;
          if (record && !record.leaving && isDue(record, now)) due.push(record);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, reader));
      return oldestFirst(due).map(owedOf);
    },
    /** A whole-backlog read, for the founders' resend-pending. */
    async pendingConfirmations(): Promise<OwedConfirmation[]> {
      const noted = await records.readNoted(await records.noteWalk());
      const owing = noted.flatMap(({ record }) => (record && !record.leaving && owes(record) ? [record] : []));
      return oldestFirst(owing).map(owedOf);
    },
    expiredUnconfirmed: (before: Date, limit: number) => expiredAmongAsked(before, limit, false),
    expiredUnconfirmedTidying: (before: Date, limit: number) => expiredAmongAsked(before, limit, true),
    removeUnconfirmed: async (signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> =>
      (await removeFound(signups, at, "pruned", (record, one) => stillExpired(record, one.optInSince))).map(
        ({ record, ...removed }) => ({ ...removed, optInSince: record.optInSince ?? record.createdAt }),
      ),
    pastItsWave: (before: Date, limit: number): Promise<LetInSignup[]> =>
      fromLedger((one) => pastItsWave(one, before), "letInAt", "letInAt", limit),
    removeAfterWave: async (signups: readonly LetInSignup[], at: Date) =>
      (await removeFound(signups, at, "after-wave", stillLetIn)).map(gone),
    undeliverableBefore: (before: Date, limit: number): Promise<UndeliverableSignup[]> =>
      fromLedger((one) => pastUndeliverable(one, before), "confirmationFailedAt", "bouncedAt", limit),
    removeUndeliverable: async (signups: readonly UndeliverableSignup[], at: Date) =>
      (await removeFound(signups, at, "undeliverable", stillUndeliverable)).map(gone),
    forgetLeaverDigestsBefore: (before: Date, { deadline }: { deadline?: number } = {}) =>
      forgetDaysBefore(layout.leaversPrefix, before.toISOString().slice(0, 10), deadline),
    forgetMailboxMailBefore: (day: string, { deadline }: { deadline?: number } = {}) =>
      forgetDaysBefore(layout.mailboxPrefix, day, deadline),
    /**
     * For the scheduled runs, no step past `deadline` (ms): a page of the earlier layout carried forward, then the
     * backlog filed into the ledger (without `tidy`, the sweep's, old notes stay for the day's pass); the rows written.
     */
    async fold(options: { deadline?: number; tidy?: boolean } = {}): Promise<number> {
      await earlier.carryForward(options.deadline);
      return ledger.fold(options);
    },
    /** One listing; the day in its key is the departure's time kept. */
    async leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]> {
      const from = since.toISOString().slice(0, 10);
      return (await io.keys(layout.leaversPrefix))
        .map((key) => ({ leftAt: kOf(key, 1), digest: kOf(key, 2) }))
        .filter(({ leftAt }) => leftAt >= from)
        .sort((a, b) => a.leftAt.localeCompare(b.leftAt));
    },
    /** One listing, each key its departure's time and how (one from before the how was in its key is read). */
    async departureCounts(between?: { from: Date; to: Date }): Promise<DepartureCounts> {
      const counts = { left: 0, pruned: 0, afterWave: 0 };
      const [from, to] = between ? [between.from.toISOString(), between.to.toISOString()] : ["", "~"];
      const start = layout.departuresPrefix.length;
      for (const key of await io.keys(layout.departuresPrefix)) {
        const at = key.slice(start, start + 24);
        if (at < from || at >= to) continue;
        let how = /^departures\/.{24}-([a-z-]+)-[0-9a-f]{8}$/.exec(key)?.[1];
        how ??= (await io.get<{ how?: string }>(key))?.how;
        counts[how === "pruned" ? "pruned" : how === "after-wave" ? "afterWave" : "left"]++;
      }
      return counts;
    },

    // The mail's bookkeeping: a fingerprint by key (the day's pass reads each: a few), a blob a day, the pace.
    async suppress(mailbox: string, until: Date, why: SuppressionReason, address?: string): Promise<void> {
      const kept = { until: until.toISOString(), why };
      await io.swap<Suppressed>(layout.suppressed(mailbox), (found = {}) =>
        (heldOf(found, address)?.until ?? "") < kept.until ? withHeld(found, address, kept) : undefined,
      );
    },
    async suppressedUntil(mailbox: string, at: Date, address?: string): Promise<string | undefined> {
      const found = (await io.get<Suppressed>(layout.suppressed(mailbox))) ?? {};
      const held = [found.until, heldOf(found, address)?.until].filter((until) => until && until > at.toISOString());
      return held.sort().at(-1);
    },
    forgetSuppressionsBefore: (before: Date, { deadline }: { deadline?: number } = {}) =>
      io.deleteOver<Suppressed>(layout.suppressed(""), (found) => lastUntil(found) < before.toISOString(), deadline),
    async countMail(day: string, counts: Partial<MailCounts>): Promise<void> {
      const none: MailDay = { day, sent: 0, throttled: 0, bounced: 0, complained: 0 };
      await io.swap<MailDay>(layout.mailDay(day), (found = none) => {
        for (const [name, n] of Object.entries(counts)) found[name as keyof MailCounts] += n;
        return found;
      });
    },
    async mailDays(from: string): Promise<MailDay[]> {
      const days = (await io.keys(layout.mailDaysPrefix)).filter((key) => kOf(key, 1) >= from).sort();
      return (await atOnce(days, (key) => io.get<MailDay>(key))).filter((day) => day !== null);
    },
    swapSetting: <T>(name: string, change: (current: T | undefined) => T | undefined) =>
      io.swap<T>(layout.setting(name), change),
    readSetting: async <T>(name: string) => (await io.get<T>(layout.setting(name))) ?? undefined,
    departures: async () => Object.values(await store.departureCounts()).reduce((a, b) => a + b, 0),
    close: async (): Promise<void> => {},
  };
  return store satisfies FullStore;
}
