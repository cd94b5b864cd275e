import { createHash, randomBytes } from "node:crypto";
import type { Store } from "@netlify/blobs";
import pLimit from "p-limit";
import type { DepartureKind, Signup } from "../store";

/*
 * The waitlist on Netlify, in Netlify Blobs (one site-wide store, strong
 * consistency for every read). Keys, by what they hold:
 *
 *   signups/<h>           one address: its signup, attribution and confirmation
 *                         state. <h> is the SHA-256 of the address's key, so no
 *                         address appears in a key or a listing. The source of truth.
 *   pending/<h>/<stamp>   a note that <h> changed and may owe a confirmation. Written
 *                         before every change, removed by the sweep once <h> owes
 *                         nothing and its ledger row is up to date. The sweep lists
 *                         this prefix: its length is the backlog, never the list.
 *   ledger/<nnnnnn>       the list for the founders' commands, a thousand rows a
 *                         blob, kept by the sweep: a whole-list read is N/1000 gets.
 *   asked/<hour>/<h>      that <h> was asked to confirm in that UTC hour (YYYY-MM-DDTHH).
 *                         Written before the record says so; read when the hour is
 *                         past the retention, then deleted: the retention's work
 *                         grows with the signups of the hours it reaches, never
 *                         with the list.
 *   left/<h>/<ms>         that <h> left at <ms>, for a sweep folding <h> at the same
 *                         moment (fold() in ledger.ts); the sweep deletes it after an hour.
 *   departures/<iso>-<how>-<r>  that someone left, when and how; never who. (Before
 *                         the how was in the key: departures/<iso>-<r>.)
 *   leavers/<day>/<d>     a keyed digest of someone who left that day (leavers.ts), for
 *                         the launch mailing tool; the retention deletes the day's folder.
 *   codes/<code>          a confirmed signup's invite code: its <h> and mailbox digest
 *                         (invites.ts). Written at its confirmation, deleted when it leaves.
 *   invites/<code>/<m>/<h>  that <h>, of mailbox <m>, came by <code>'s invite link and
 *                         confirmed: an inviter's count is the <m>s under its code, one
 *                         listing. Never for the inviter's own mailbox; deleted when <h> leaves.
 *   settings/<name>       secrets the store keeps.
 *   mailbox/<day>/<s>     the confirmation e-mails to each mailbox on a UTC day, for the
 *                         cap: a count under each mailbox's digest (never an address), the
 *                         digests shared out by their first two characters <s> among at
 *                         most 256 blobs a day, so that dropping a day is 256 deletes at
 *                         most, whatever the day's signups. (Before: mailbox/<day>/<c>[.<n>],
 *                         a blob per e-mail, which the retention still drops.)
 *
 * Every change to signups/<h> is a compare-and-swap (onlyIfMatch with the
 * ETag of the read it is based on; onlyIfNew for the first signup): Netlify
 * applies a conditional write atomically, so of two concurrent writers one
 * wins and the other reads again. The tests' Blobs server refuses as Netlify
 * does (test/support/blobs-server.mjs), and the races are tested against it:
 * blobs-store.test.ts, and test/server/netlify-blobs.test.ts through the
 * functions.
 *
 * This file holds that layout and what every part of the store shares: the
 * record, its keys, and reading and changing one record.
 */

export interface BlobRecord extends Signup {
  /** Attempts at the confirmation so far (each claim is one). */
  attempts: number;
  /** Who holds the confirmation: nobody, or a sender until this time. */
  claimedUntil: string | null;
  /** When a confirmation that failed for now is due again. */
  confirmationNextAt: string | null;
  /** The ledger blob holding this address's row, once the sweep has folded it. */
  chunk: string | null;
  /**
   * Set by remove() before it erases anything; the record is gone to everyone but those finishing the leave. Its
   * `id` names the departure it counts, so a leave that several finish (a burst of one-click posts, a sweep) counts
   * once; a mark from before the id counts one departure per finisher.
   */
  leaving: { at: string; how: DepartureKind; id?: string; digest?: string } | null;
  /** When the asking now under way began: a repeat signup asks again, a message of its own; optInSince stays. */
  askedAt?: string | null;
  /** The announcements of a policy's change this signup was sent (AnnouncementLog), none before the first. */
  announcements?: string[];
}

/** A record as read, with the ETag a compare-and-swap of it is based on (none from a server that gives none). */
export interface Found {
  record: BlobRecord;
  etag: string | undefined;
}

export const blobsStoreName = "waitlist";
/**
 * Reads and writes at once, for the sweep and the founders' commands: each is an HTTPS round trip of tens of
 * milliseconds from a function, so a scheduled run's 30 s holds about 20,000 of them this many at a time.
 */
export const concurrency = 32;
/**
 * Compare-and-swap attempts before giving up on a key. Netlify refuses an
 * attempt only when another change of the key landed between its read and
 * its write, so a change that gives up saw maxAttempts - 1 others land while
 * it tried: of that many changes of one key at the same moment, each lands.
 * The key changed most at once is a ledger blob: the leaves of its thousand
 * addresses, and the sweep. Past that, a change fails as a request Netlify
 * refuses does (a leave that fails half-way, the next sweep finishes: fold()
 * in ledger.ts).
 */
export const maxAttempts = 32;

/**
 * The wait before the attempt after `refusals` refusals: random, up to 5 ms
 * doubled with each, at most 100 ms. Writers that collided spread out instead
 * of colliding again, each collision a get and a put; a change that meets
 * 31 refusals waits 2.9 s at most, 1.4 s on average.
 */
export const afterRefusals = (refusals: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 5 * 2 ** refusals)));

/** What an address is filed under: the SHA-256 of its key, in hex (the Netlify bench seeds a store with it). */
export const hashOf = (emailKey: string) => createHash("sha256").update(emailKey, "utf8").digest("hex");
const stamp = (at: Date) => `${String(at.getTime()).padStart(15, "0")}-${randomBytes(4).toString("hex")}`;
export const signupKey = (h: string) => `signups/${h}`;
/** How is in the key, so stats tells pruned from left by listing alone; the leave's id, so it is counted once. */
const departureKey = ({ at, how, id }: NonNullable<BlobRecord["leaving"]>) =>
  `departures/${at}-${how}-${id ?? randomBytes(4).toString("hex")}`;

/** What marks a record as leaving, at `at`. */
export const leavingMark = (at: Date, how: DepartureKind, digest?: string): NonNullable<BlobRecord["leaving"]> => ({
  at: at.toISOString(),
  how,
  id: randomBytes(4).toString("hex"),
  ...(digest ? { digest } : {}),
});

/** Where a leaver's digest is kept until the retention drops its day: leavers/<day>/<digest> (waitlist/leavers.ts). */
export const leaverKey = (at: string, digest: string) => `leavers/${at.slice(0, 10)}/${digest}`;

/** The UTC hour an asking falls in, as its asked/ folder names it. */
export const hourOf = (iso: string) => iso.slice(0, 13);

/**
 * A record or ledger row as this version reads it: one written before the
 * confirm step lacks its fields, and is unconfirmed, under an unknown policy,
 * and never asked (as the SQLite store's migration 6 makes its rows); one
 * written before the daily cap was never capped.
 */
export function upgraded<T extends Signup>(stored: T): T {
  return {
    ...stored,
    inviteCode: stored.inviteCode ?? null,
    invitedBy: stored.invitedBy ?? null,
    mailbox: stored.mailbox ?? null,
    confirmedAt: stored.confirmedAt ?? null,
    confirmationCapped: stored.confirmationCapped ?? false,
    privacyPolicyAtSignup: stored.privacyPolicyAtSignup ?? null,
    privacyPolicyAtConfirm: stored.privacyPolicyAtConfirm ?? null,
    optInSince: stored.optInSince ?? null,
    consentAtSignup: stored.consentAtSignup ?? null,
    consentAtConfirm: stored.consentAtConfirm ?? null,
  };
}

/** Everything still owed: neither sent nor refused for good. */
export const owes = (record: Pick<Signup, "confirmationSentAt" | "confirmationFailedAt">) =>
  record.confirmationSentAt === null && record.confirmationFailedAt === null;

export class BlobsStoreError extends Error {}

/**
 * The condition of a compare-and-swap of `key`: that it is still as read.
 * Without an ETag there is none: @netlify/blobs drops an empty onlyIfMatch
 * and writes over whatever other writers did since, so nothing is written.
 */
export function unchangedSince(etag: string | undefined, key: string): { onlyIfMatch: string } {
  if (!etag) {
    throw new BlobsStoreError(
      `${shown(key)} was read without an ETag, so it cannot be changed safely; nothing was written. Netlify Blobs gives one with every read: check that NETLIFY_BLOBS_CONTEXT points at it.`,
    );
  }
  return { onlyIfMatch: etag };
}

/** A key as an error shows it: an address's hash cut to its first 8 characters. */
const shown = (key: string) => key.replace(/[0-9a-f]{56}$/, "…");

/** The store's blobs and clock, and the reads and writes of single records that every part of the store makes. */
export class Records {
  constructor(
    readonly blobs: Store,
    readonly clock: () => Date,
  ) {}

  /**
   * Writes `data` (JSON, or text as it is) under a condition, and resolves
   * whether it was written. @netlify/blobs 11 takes any answer but a 412 for
   * a write made, a 503 after its retries included, while Netlify answers a
   * write it made with the new ETag: an answer without one is checked by
   * reading the blob back, and one that did not write what was asked is a
   * failure, so nothing after it is taken as done.
   */
  async writeIf(
    key: string,
    data: unknown,
    condition: { onlyIfMatch: string } | { onlyIfNew: true },
  ): Promise<boolean> {
    const text = typeof data === "string";
    const { modified, etag } = text
      ? await this.blobs.set(key, data, condition)
      : await this.blobs.setJSON(key, data, condition);
    if (!modified || etag) return modified;
    const stored = await this.blobs.get(key, { type: "text", consistency: "strong" });
    if (stored === (text ? data : JSON.stringify(data))) return true;
    throw new BlobsStoreError(`Netlify Blobs neither made nor refused a write of ${shown(key)}; try again.`);
  }

  async read(h: string): Promise<Found | undefined> {
    const found = await this.readJSON(signupKey(h));
    if (!found) return undefined;
    return { record: upgraded(found.data as BlobRecord), etag: found.etag };
  }

  /**
   * A JSON blob and the ETag a compare-and-swap of it is based on. Netlify gives one with every read. netlify dev's
   * local sandbox (@netlify/blobs' BlobsServer) gives none on a read, but lists one, which its conditional writes
   * compare: there it is taken from a listing before and after the read, and the read made again until they agree.
   */
  async readJSON(key: string): Promise<{ data: unknown; etag: string | undefined } | null> {
    const read = async () => {
      const found = await this.blobs.getWithMetadata(key, { type: "json", consistency: "strong" });
      return found && { data: found.data as unknown, etag: found.etag };
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

  /**
   * Changes one listed record by compare-and-swap: `change` gets the current
   * record and returns the new one, or undefined to leave it. Read again and
   * retried when another writer got there first. Resolves with what was
   * written; undefined for an address that is not listed, or is leaving.
   */
  async update(h: string, change: (record: BlobRecord) => BlobRecord | undefined) {
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      if (attempt > 0) await afterRefusals(attempt);
      const current = await this.read(h);
      if (!current || current.record.leaving) return undefined;
      const next = change(structuredClone(current.record));
      if (!next) return undefined;
      if (await this.writeIf(signupKey(h), next, unchangedSince(current.etag, signupKey(h)))) return next;
    }
    throw new BlobsStoreError(`signups/${h.slice(0, 8)}… kept changing under ${maxAttempts} writes; try again.`);
  }

  note(h: string): Promise<unknown> {
    return this.blobs.set(`pending/${h}/${stamp(this.clock())}`, "");
  }

  /** That <h> is asked to confirm from `at` on: written before the record says so (expiredUnconfirmed() in queue.ts). */
  askedNote(h: string, at: string): Promise<unknown> {
    return this.blobs.set(`asked/${hourOf(at)}/${h}`, "");
  }

  /** That <h> left at `at` (ms), for a sweep folding it at the same moment (fold() in ledger.ts). */
  leftNote(h: string, at: number): Promise<unknown> {
    return this.blobs.set(`left/${h}/${String(at).padStart(15, "0")}`, "");
  }

  /** The inviter an invite code names (codes/<code>), when it is a confirmed signup's. */
  async inviter(code: string): Promise<{ h: string; mailbox: string | null } | undefined> {
    return ((await this.blobs.get(`codes/${code}`, { type: "json", consistency: "strong" })) ?? undefined) as
      { h: string; mailbox: string | null } | undefined;
  }

  /** How many confirmed invitees `code` has now: one per mailbox, the <m> of the keys under invites/<code>/. */
  async confirmedInvites(code: string): Promise<number> {
    const { blobs } = await this.blobs.list({ prefix: `invites/${code}/` });
    return new Set(blobs.map(({ key }) => key.split("/")[2])).size;
  }

  /**
   * A confirmed record's invite blobs, idempotent (a confirm writes them, and a fold finishes what a confirm that
   * died left undone): its own code, and its credit under its inviter's, unless it is the inviter's own mailbox.
   */
  async fileInvites(h: string, record: BlobRecord): Promise<void> {
    if (record.confirmedAt === null) return;
    if (record.inviteCode) await this.blobs.setJSON(`codes/${record.inviteCode}`, { h, mailbox: record.mailbox });
    if (!record.invitedBy || !record.mailbox) return;
    const inviter = await this.inviter(record.invitedBy);
    if (inviter && inviter.mailbox !== record.mailbox && inviter.h !== h) {
      await this.blobs.set(`invites/${record.invitedBy}/${record.mailbox}/${h}`, "");
    }
  }

  /**
   * A leave's last steps, once its ledger row is erased: its invite blobs deleted and the departure counted, at
   * once, then the record, then its asked/ note, by which a pass that died before the record went finds it again
   * (the departure's key is its leave's id, so finishing twice counts it once). Three round trips, not six: the
   * daily pass may finish thousands.
   */
  async erase(h: string, record: BlobRecord) {
    const leaving = record.leaving!;
    await Promise.all([
      // Its credit under its inviter's code, and its own code: a count never holds one who left.
      record.invitedBy && record.mailbox && this.blobs.delete(`invites/${record.invitedBy}/${record.mailbox}/${h}`),
      record.inviteCode && this.blobs.delete(`codes/${record.inviteCode}`),
      this.blobs.setJSON(departureKey(leaving), { how: leaving.how }),
      leaving.digest && this.blobs.set(leaverKey(leaving.at, leaving.digest), ""),
    ]);
    await this.blobs.delete(signupKey(h));
    if (record.optInSince) await this.blobs.delete(`asked/${hourOf(record.optInSince)}/${h}`);
    return { email: record.email, createdAt: record.createdAt };
  }

  /** The records behind the pending notes: the backlog, read `concurrency` at a time. For the founders' reads. */
  async noted(): Promise<Noted[]> {
    return this.readNoted([...(await this.notes())]);
  }

  /** The records behind these notes, read `concurrency` at a time. */
  readNoted(notes: readonly (readonly [string, string[]])[]): Promise<Noted[]> {
    const limit = pLimit(concurrency);
    return Promise.all(notes.map(([h, keys]) => limit(async () => ({ h, keys, found: await this.read(h) }))));
  }

  /**
   * Every address with a pending note and the notes' keys, from one at random and round: the scheduled runs read
   * the backlog a page at a time while their time lasts, so each starts elsewhere and none is left for ever behind
   * the same first page.
   */
  async noteWalk(): Promise<[string, string[]][]> {
    const notes = [...(await this.notes())];
    const start = Math.floor(Math.random() * notes.length);
    return [...notes.slice(start), ...notes.slice(0, start)];
  }

  /** Every address with a pending note, and the notes' keys: a listing, no record read. */
  private async notes(): Promise<Map<string, string[]>> {
    const { blobs } = await this.blobs.list({ prefix: "pending/" });
    const byHash = new Map<string, string[]>();
    for (const { key } of blobs) {
      const h = key.split("/")[1]!;
      byHash.set(h, [...(byHash.get(h) ?? []), key]);
    }
    return byHash;
  }

  /**
   * Deletes `keys`, `concurrency` at a time, until `deadline` (ms on the store's clock): a clean-up of the
   * scheduled runs, whose work is bounded by their time, what is left the next run's. Returns how many it deleted.
   */
  async deleteUntil(keys: readonly string[], deadline = Infinity): Promise<number> {
    const limit = pLimit(concurrency);
    let deleted = 0;
    await Promise.all(
      keys.map((key) =>
        limit(async () => {
          if (this.clock().getTime() > deadline) return;
          await this.blobs.delete(key);
          deleted++;
        }),
      ),
    );
    return deleted;
  }
}

/** A pending note's address, its notes' keys, and its record as read (none once it is gone). */
export interface Noted {
  h: string;
  keys: string[];
  found?: Found;
}
