import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { Store } from "@netlify/blobs";
import pLimit from "p-limit";
import { noAttribution } from "../attribution";
import type { StatsSignup } from "../stats";
import type {
  Confirmation,
  ConfirmationCounts,
  DepartureKind,
  FullStore,
  ListedSignup,
  NewSignup,
  OwedConfirmation,
  RemovedSignup,
  Signup,
  UnconfirmedSignup,
} from "./store";

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
 *                         moment (fold() below); the sweep deletes it after an hour.
 *   departures/<iso>-<how>-<r>  that someone left, when and how; never who. (Before
 *                         the how was in the key: departures/<iso>-<r>.)
 *   settings/<name>       secrets the store keeps.
 *   mailbox/<day>/<c>[.<n>]  the confirmation e-mails to one mailbox on a UTC day, for
 *                         the cap (<c> a digest of the mailbox, never an address):
 *                         one blob per e-mail, and the last number taken.
 *
 * Every change to signups/<h> is a compare-and-swap (onlyIfMatch with the
 * ETag of the read it is based on; onlyIfNew for the first signup): Netlify
 * applies a conditional write atomically, so of two concurrent writers one
 * wins and the other reads again. (The local BlobsServer the tests use checks
 * then writes, so races are tested on the SQLite side; see docs/database.md.)
 */

interface BlobRecord extends Signup {
  /** Attempts at the confirmation so far (each claim is one). */
  attempts: number;
  /** Who holds the confirmation: nobody, or a sender until this time. */
  claimedUntil: string | null;
  /** When a confirmation that failed for now is due again. */
  confirmationNextAt: string | null;
  /** The ledger blob holding this address's row, once the sweep has folded it. */
  chunk: string | null;
  /** Set by remove() before it erases anything; the record is gone to everyone but the one finishing the leave. */
  leaving: { at: string; how: DepartureKind } | null;
  /** When the asking now under way began: a repeat signup asks again, a message of its own; optInSince stays. */
  askedAt?: string | null;
}

/** A ledger row: the signup as the founders' commands read it, and when its retry is due (for `count`). */
type LedgerRow = Signup & { confirmationNextAt: string | null };

interface Chunk {
  rows: Record<string, LedgerRow>;
}

export const blobsStoreName = "waitlist";
/** Rows per ledger blob: an export of N signups reads about N/1000 blobs. */
export const rowsPerChunk = 1000;
/** Reads and writes at once, for the sweep and the founders' commands. */
const concurrency = 16;
/** How long a leave's note stays for folding sweeps: any sweep finishes well within it (scheduled functions stop at 30 s). */
const leftNoteMs = 3_600_000;
/** Compare-and-swap attempts before giving up on a key others keep changing. */
const maxAttempts = 8;

/** What an address is filed under: the SHA-256 of its key, in hex (the Netlify bench seeds a store with it). */
export const hashOf = (emailKey: string) => createHash("sha256").update(emailKey, "utf8").digest("hex");
/**
 * What the store keeps to recognise WAITLIST_SECRET: scrypt of it under a
 * random salt. A plain hash, or an HMAC of a fixed label, lets anyone who can
 * read the store test guesses at a weak secret offline at billions a second;
 * each scrypt guess costs 16 MiB and tens of milliseconds.
 */
const markPrefix = "environment-scrypt";
const scryptOptions = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const derive = (secret: string, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(secret, salt, 32, scryptOptions, (error, key) => (error ? reject(error) : resolve(key))),
  );
async function signerMark(secret: string): Promise<string> {
  const salt = randomBytes(16);
  return `${markPrefix} ${salt.toString("base64url")} ${(await derive(secret, salt)).toString("base64url")}`;
}
/** Whether `mark` was made for `secret`: the mark, or the plain hash an earlier version wrote. */
async function marks(mark: string, secret: string): Promise<boolean> {
  if (mark === `environment ${hashOf(secret)}`) return true;
  const [prefix, salt, key] = mark.split(" ");
  if (prefix !== markPrefix || !salt || !key) return false;
  const wanted = Buffer.from(key, "base64url");
  const derived = await derive(secret, Buffer.from(salt, "base64url"));
  return wanted.length === derived.length && timingSafeEqual(wanted, derived);
}
const stamp = (at: Date) => `${String(at.getTime()).padStart(15, "0")}-${randomBytes(4).toString("hex")}`;
const signupKey = (h: string) => `signups/${h}`;
/** How is in the key, so stats tells pruned from left by listing alone. */
const departureKey = (at: string, how: DepartureKind) => `departures/${at}-${how}-${randomBytes(4).toString("hex")}`;
const chunkName = (seq: number) => String(seq).padStart(6, "0");

/** The UTC hour an asking falls in, as its asked/ folder names it. */
const hourOf = (iso: string) => iso.slice(0, 13);
/** When an asked/ folder's hour is over. */
const hourEnd = (hour: string) => Date.parse(`${hour}:00:00.000Z`) + 3_600_000;

/**
 * A record or ledger row as this version reads it: one written before the
 * confirm step lacks its fields, and is unconfirmed, under an unknown policy,
 * and never asked (as the SQLite store's migration 6 makes its rows).
 */
function upgraded<T extends Signup>(stored: T): T {
  return {
    ...stored,
    confirmedAt: stored.confirmedAt ?? null,
    privacyPolicyAtSignup: stored.privacyPolicyAtSignup ?? null,
    privacyPolicyAtConfirm: stored.privacyPolicyAtConfirm ?? null,
    optInSince: stored.optInSince ?? null,
    consentAtSignup: stored.consentAtSignup ?? null,
    consentAtConfirm: stored.consentAtConfirm ?? null,
  };
}

/** What a ledger row shows of a record: everything but who holds it and where it is filed. */
function ledgerRow({
  attempts: _a,
  claimedUntil: _c,
  chunk: _k,
  leaving: _l,
  askedAt: _s,
  ...row
}: BlobRecord): LedgerRow {
  return row;
}

/** The public fields of a row, in the order the SQLite store gives them. */
function signupOf(row: LedgerRow): Signup {
  const { confirmationNextAt: _next, ...signup } = row;
  return signup;
}

/** Everything still owed: neither sent nor refused for good. */
const owes = (record: Pick<Signup, "confirmationSentAt" | "confirmationFailedAt">) =>
  record.confirmationSentAt === null && record.confirmationFailedAt === null;

export class BlobsStoreError extends Error {}

export class BlobsStore implements FullStore {
  private readonly clock: () => Date;
  private readonly rowsPerChunk: number;

  constructor(
    private readonly blobs: Store,
    { clock = () => new Date(), chunkRows = rowsPerChunk }: { clock?: () => Date; chunkRows?: number } = {},
  ) {
    this.clock = clock;
    this.rowsPerChunk = chunkRows;
  }

  private async read(h: string): Promise<{ record: BlobRecord; etag: string } | undefined> {
    const found = await this.blobs.getWithMetadata(signupKey(h), { type: "json", consistency: "strong" });
    if (!found) return undefined;
    return { record: upgraded(found.data as BlobRecord), etag: found.etag ?? "" };
  }

  /**
   * Changes one listed record by compare-and-swap: `change` gets the current
   * record and returns the new one, or undefined to leave it. Read again and
   * retried when another writer got there first. Resolves with what was
   * written; undefined for an address that is not listed, or is leaving.
   */
  private async update(h: string, change: (record: BlobRecord) => BlobRecord | undefined) {
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const current = await this.read(h);
      if (!current || current.record.leaving) return undefined;
      const next = change(structuredClone(current.record));
      if (!next) return undefined;
      const { modified } = await this.blobs.setJSON(signupKey(h), next, { onlyIfMatch: current.etag });
      if (modified) return next;
    }
    throw new BlobsStoreError(`signups/${h.slice(0, 8)}… kept changing under ${maxAttempts} writes; try again.`);
  }

  private note(h: string): Promise<unknown> {
    return this.blobs.set(`pending/${h}/${stamp(this.clock())}`, "");
  }

  /** That <h> is asked to confirm from `at` on: written before the record says so (see expiredUnconfirmed()). */
  private askedNote(h: string, at: string): Promise<unknown> {
    return this.blobs.set(`asked/${hourOf(at)}/${h}`, "");
  }

  async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    const h = hashOf(entry.emailKey);
    const createdAt = (entry.at ?? this.clock()).toISOString();
    const record: BlobRecord = {
      email: entry.email,
      emailKey: entry.emailKey,
      createdAt,
      source: entry.source,
      confirmationSentAt: entry.confirmationSentAt?.toISOString() ?? null,
      confirmationFailedAt: null,
      confirmationError: null,
      confirmedAt: null,
      privacyPolicyAtSignup: entry.privacyPolicy ?? null,
      privacyPolicyAtConfirm: null,
      consentAtSignup: entry.consent ?? null,
      consentAtConfirm: null,
      optInSince: entry.earlier ? null : createdAt,
      ...noAttribution,
      ...entry.attribution,
      attempts: 0,
      claimedUntil: null,
      confirmationNextAt: null,
      chunk: null,
      leaving: null,
    };
    // The notes first: a record is never without them while it owes a confirmation or may expire, whatever fails
    // after. A listed address makes the same writes, so a repeat takes as long as a new signup.
    await Promise.all([this.note(h), entry.earlier ? undefined : this.askedNote(h, createdAt)]);
    const { modified } = await this.blobs.setJSON(signupKey(h), record, { onlyIfNew: true });
    return { added: modified, createdAt };
  }

  async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
    const written = await this.update(hashOf(emailKey), (record) => {
      const held = record.claimedUntil !== null && record.claimedUntil >= now.toISOString();
      if (!owes(record) || held) return undefined;
      return {
        ...record,
        attempts: record.attempts + 1,
        claimedUntil: new Date(now.getTime() + leaseMs).toISOString(),
      };
    });
    return written?.attempts;
  }

  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    const found = await this.read(hashOf(emailKey));
    if (!found || found.record.leaving) return undefined;
    const { email, createdAt, confirmedAt } = found.record;
    return { email, createdAt, confirmedAt };
  }

  /** The first confirmation is kept. The note first, so the sweep files it in the ledger whatever fails after. */
  async confirm(emailKey: string, { createdAt, at, privacyPolicy, consent = null }: Confirmation) {
    const h = hashOf(emailKey);
    await this.note(h);
    let earlier: string | undefined;
    const written = await this.update(h, (record) => {
      if (record.createdAt !== createdAt) return undefined;
      if (record.confirmedAt !== null) {
        earlier = record.confirmedAt;
        return undefined;
      }
      return {
        ...record,
        confirmedAt: at.toISOString(),
        privacyPolicyAtConfirm: privacyPolicy,
        consentAtConfirm: consent,
      };
    });
    if (earlier) return { confirmedAt: earlier, first: false };
    return written ? { confirmedAt: written.confirmedAt!, first: true } : undefined;
  }

  async askToConfirm(
    emailKey: string,
    at: Date,
    { resendAfterMs }: { resendAfterMs?: number } = {},
  ): Promise<OwedConfirmation | undefined> {
    const h = hashOf(emailKey);
    const again = resendAfterMs !== undefined;
    const sentBefore = new Date(at.getTime() - (resendAfterMs ?? 0)).toISOString();
    const asks = (record: BlobRecord) =>
      record.confirmedAt === null &&
      (!again || record.confirmationFailedAt === null) &&
      (record.optInSince === null ||
        (again && record.confirmationSentAt !== null && record.confirmationSentAt <= sentBefore));
    // Read first: a repeat signup of a confirmed address, the common case, writes nothing.
    const current = await this.read(h);
    if (!current || current.record.leaving || !asks(current.record)) return undefined;
    // Asked from the first asking on: a repeat signup never moves the day the retention counts from.
    await Promise.all([this.note(h), this.askedNote(h, current.record.optInSince ?? at.toISOString())]);
    const written = await this.update(h, (record) =>
      asks(record)
        ? {
            ...record,
            optInSince: record.optInSince ?? at.toISOString(),
            askedAt: at.toISOString(),
            confirmationSentAt: null,
            confirmationFailedAt: null,
            confirmationError: null,
            confirmationNextAt: null,
            claimedUntil: null,
            attempts: 0,
          }
        : undefined,
    );
    if (!written) return undefined;
    const { email, createdAt, askedAt } = written;
    return { email, emailKey, createdAt, optInSince: askedAt ?? null };
  }

  async markConfirmationSent(emailKey: string, at: Date): Promise<void> {
    const h = hashOf(emailKey);
    // A record never asked before (one owed its mail since before the confirm step) is asked from now on: its
    // asked/ note goes first, so such a record takes a second round.
    let noted = false;
    for (;;) {
      let unasked = false;
      await this.update(h, (record) => {
        if (record.optInSince === null && !noted) {
          unasked = true;
          return undefined;
        }
        return {
          ...record,
          confirmationSentAt: at.toISOString(),
          claimedUntil: null,
          confirmationError: null,
          confirmationNextAt: null,
          optInSince: record.optInSince ?? at.toISOString(),
        };
      });
      if (!unasked) return;
      await this.askedNote(h, at.toISOString());
      noted = true;
    }
  }

  async releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    await this.update(hashOf(emailKey), (record) => ({
      ...record,
      claimedUntil: null,
      confirmationError: error.slice(0, 500),
      confirmationNextAt: retryAt.toISOString(),
    }));
  }

  async failConfirmation(emailKey: string, error: string, at: Date): Promise<void> {
    await this.update(hashOf(emailKey), (record) => ({
      ...record,
      claimedUntil: null,
      confirmationError: error.slice(0, 500),
      confirmationFailedAt: at.toISOString(),
      confirmationNextAt: null,
    }));
  }

  /**
   * In an order that leaves no copy behind and that the sweep can finish
   * after a crash: a note for a sweep folding this address right now (see
   * fold()), the record marked as leaving (after which no sweep files it
   * anew), its ledger row erased, the record deleted, the departure counted.
   */
  async remove(emailKey: string, how: DepartureKind, at: Date, createdAt?: string) {
    const h = hashOf(emailKey);
    if (createdAt !== undefined) {
      // A link for an earlier signup of the address: nothing to do, and no note that a sweep would act on.
      const current = await this.read(h);
      if (current && !current.record.leaving && current.record.createdAt !== createdAt) return undefined;
    }
    await this.blobs.set(`left/${h}/${String(at.getTime()).padStart(15, "0")}`, "");
    const marked = await this.update(h, (record) =>
      createdAt === undefined || record.createdAt === createdAt
        ? { ...record, leaving: { at: at.toISOString(), how } }
        : undefined,
    );
    if (!marked) {
      // Not listed; or a leave that stopped half-way, which this one finishes.
      const half = await this.read(h);
      if (!half?.record.leaving) return undefined;
      return this.finishLeave(h, half.record);
    }
    await this.note(h);
    return this.finishLeave(h, marked);
  }

  private async finishLeave(h: string, record: BlobRecord) {
    if (record.chunk) await this.eraseRows(record.chunk, [[h, Date.parse(record.leaving!.at)]]);
    return this.eraseRecord(h, record);
  }

  /** A leave's last steps, once its ledger row is erased: the record and its asked/ note deleted, the departure counted. */
  private async eraseRecord(h: string, record: BlobRecord) {
    await this.blobs.delete(signupKey(h));
    if (record.optInSince) await this.blobs.delete(`asked/${hourOf(record.optInSince)}/${h}`);
    await this.blobs.setJSON(departureKey(record.leaving!.at, record.leaving!.how), {
      how: record.leaving!.how,
    });
    return { email: record.email, createdAt: record.createdAt };
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
          const written = await this.update(h, (record) =>
            record.confirmedAt === null && record.optInSince === optInSince
              ? { ...record, leaving: { at: at.toISOString(), how: "pruned" as const } }
              : undefined,
          );
          if (written) return { h, record: written };
          const half = await this.read(h);
          return half?.record.leaving ? { h, record: half.record } : undefined;
        }),
      ),
    );
    const leaving = marked.filter((entry) => entry !== undefined);
    // The left/ notes of those marked, before their rows are erased: a fold writing a row after that erases it
    // again (see fold()). Only theirs: a note for a signup that stays would have a fold erase its row.
    await Promise.all(
      leaving.map(({ h, record }) =>
        limit(() => this.blobs.set(`left/${h}/${String(Date.parse(record.leaving!.at)).padStart(15, "0")}`, "")),
      ),
    );
    const byChunk = new Map<string, (readonly [string, number])[]>();
    for (const { h, record } of leaving) {
      if (record.chunk) {
        byChunk.set(record.chunk, [...(byChunk.get(record.chunk) ?? []), [h, Date.parse(record.leaving!.at)]]);
      }
    }
    await Promise.all([...byChunk].map(([chunk, rows]) => this.eraseRows(chunk, rows)));
    return Promise.all(
      leaving.map(({ h, record }) =>
        limit(async () => ({
          ...(await this.eraseRecord(h, record)),
          // Found by its asked/ note, so asked; the signup's time only for a record of another shape.
          optInSince: record.optInSince ?? record.createdAt,
        })),
      ),
    );
  }

  /**
   * Each e-mail takes a numbered blob, mailbox/<day>/<counter>.<n>, written
   * only if new: of senders counting at the same moment (a burst of
   * signups, each in a function instance of its own), one takes n and the
   * others go on to n + 1, so none sees a count another saw. A read, then
   * a write, would give them all the same count, and the cap none. The
   * blob mailbox/<day>/<counter> holds the last number taken, where a count
   * starts: every number up to it is taken, and a stale one costs a write
   * that changes nothing, never a count.
   */
  async countMailboxMail(counter: string, day: string): Promise<number> {
    const last = `mailbox/${day}/${counter}`;
    const from = Number((await this.blobs.get(last, { type: "text", consistency: "strong" })) ?? 0);
    for (let n = from + 1; ; n++) {
      const { modified } = await this.blobs.set(`${last}.${n}`, "", { onlyIfNew: true });
      if (!modified) continue;
      await this.blobs.set(last, String(n));
      return n;
    }
  }

  async forgetMailboxMailBefore(day: string): Promise<void> {
    const { directories } = await this.blobs.list({ prefix: "mailbox/", directories: true });
    for (const folder of directories.filter((name) => name.slice("mailbox/".length) < day)) {
      const { blobs } = await this.blobs.list({ prefix: `${folder}/` });
      for (const { key } of blobs) await this.blobs.delete(key);
    }
  }

  async secret(name: "leave", make: () => string): Promise<string> {
    const key = `settings/${name}-secret`;
    await this.blobs.set(key, make(), { onlyIfNew: true });
    const value = await this.blobs.get(key, { type: "text", consistency: "strong" });
    if (!value) throw new BlobsStoreError(`${key} could not be read back.`);
    return value;
  }

  /**
   * Which secret the functions sign leave links with: the one this store keeps,
   * or WAITLIST_SECRET from Netlify's environment, recognised by its scrypt
   * (signerMark). Written when a function opens the waitlist, unless it says
   * so already; read by the founders' resend-pending, which must sign with
   * the same one.
   */
  async noteSigner(configured: string | undefined): Promise<void> {
    const key = "settings/leave-signer";
    if (!configured) return void (await this.blobs.set(key, "store"));
    const noted = await this.blobs.get(key, { type: "text", consistency: "strong" });
    if (noted?.startsWith(`${markPrefix} `) && (await marks(noted, configured))) return;
    await this.blobs.set(key, await signerMark(configured));
  }

  /** Why `configured` (the founder's WAITLIST_SECRET) would sign other links than the functions do; undefined when it would not. */
  async signerProblem(configured: string | undefined): Promise<string | undefined> {
    const signer = await this.blobs.get("settings/leave-signer", { type: "text", consistency: "strong" });
    if (!signer || signer === "store") {
      return configured
        ? "Netlify's functions sign leave links with the secret their store keeps: unset WAITLIST_SECRET in your shell."
        : undefined;
    }
    if (configured && (await marks(signer, configured))) return undefined;
    return "Netlify's functions sign leave links with the WAITLIST_SECRET of Netlify's environment: set the same value in your shell.";
  }

  async close(): Promise<void> {}

  /** Every address with a pending note, and the notes' keys. */
  private async notes(): Promise<Map<string, string[]>> {
    const { blobs } = await this.blobs.list({ prefix: "pending/" });
    const byHash = new Map<string, string[]>();
    for (const { key } of blobs) {
      const h = key.split("/")[1]!;
      byHash.set(h, [...(byHash.get(h) ?? []), key]);
    }
    return byHash;
  }

  /** The records behind the pending notes: the backlog, read `concurrency` at a time. */
  private async noted(): Promise<{ h: string; keys: string[]; found?: { record: BlobRecord; etag: string } }[]> {
    const limit = pLimit(concurrency);
    return Promise.all(
      [...(await this.notes())].map(([h, keys]) => limit(async () => ({ h, keys, found: await this.read(h) }))),
    );
  }

  private async owed(due?: Date): Promise<OwedConfirmation[]> {
    const at = due?.toISOString();
    return (await this.noted())
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
    const cutoff = before.toISOString();
    const { directories } = await this.blobs.list({ prefix: "asked/", directories: true });
    const hours = directories
      .map((folder) => folder.replace(/\/$/, "").slice("asked/".length))
      .filter((hour) => /^\d{4}-\d\d-\d\dT\d\d$/.test(hour) && hourEnd(hour) <= before.getTime())
      .sort();
    const expired: UnconfirmedSignup[] = [];
    const reads = pLimit(concurrency);
    const check = async (hour: string, key: string) => {
      const record = (await this.read(key.slice(key.lastIndexOf("/") + 1)))?.record;
      const due =
        record !== undefined &&
        record.optInSince !== null &&
        hourOf(record.optInSince) === hour &&
        (record.leaving !== null || (record.confirmedAt === null && record.optInSince < cutoff));
      if (!due && tidy) await this.blobs.delete(key);
      return due ? [record] : [];
    };
    for (const hour of hours) {
      // A page of notes at a time (a viral hour holds many), and of a page only as many as are still wanted.
      for await (const { blobs: notes } of this.blobs.list({ prefix: `asked/${hour}/`, paginate: true })) {
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

  dueConfirmations(now: Date, limit: number): Promise<OwedConfirmation[]> {
    return this.owed(now).then((owed) => owed.slice(0, limit));
  }

  pendingConfirmations(): Promise<OwedConfirmation[]> {
    return this.owed();
  }

  /** Removes rows from one ledger blob: [address hash, left at (ms)]; a row signed up after that stays. */
  private async eraseRows(chunk: string, leaving: readonly (readonly [string, number])[]): Promise<void> {
    await this.changeChunk(chunk, (rows) => {
      for (const [h, leftAt] of leaving) {
        const row = rows[h];
        if (row && Date.parse(row.createdAt) <= leftAt) delete rows[h];
      }
    });
  }

  /** Changes one ledger blob by compare-and-swap; creates it when it does not exist. */
  private async changeChunk(chunk: string, change: (rows: Record<string, LedgerRow>) => void): Promise<number> {
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const found = await this.blobs.getWithMetadata(`ledger/${chunk}`, { type: "json", consistency: "strong" });
      const rows = ((found?.data as Chunk | undefined)?.rows ?? {}) as Record<string, LedgerRow>;
      change(rows);
      const { modified } = await this.blobs.setJSON(
        `ledger/${chunk}`,
        { rows } satisfies Chunk,
        found ? { onlyIfMatch: found.etag ?? "" } : { onlyIfNew: true },
      );
      if (modified) return Object.keys(rows).length;
    }
    throw new BlobsStoreError(`ledger/${chunk} kept changing under ${maxAttempts} writes; the next sweep tries again.`);
  }

  /** The ledger's blobs, oldest first. */
  private async chunks(): Promise<string[]> {
    const { blobs } = await this.blobs.list({ prefix: "ledger/" });
    return blobs.map(({ key }) => key.slice("ledger/".length)).sort();
  }

  /**
   * The sweep's bookkeeping, after it has sent what was due: every noted
   * address's row written to the ledger as its record now stands, and the
   * notes of those that owe nothing more removed. Work grows with the
   * backlog of notes, never with the list. Returns how many rows it wrote.
   *
   * A leave racing with this: remove() writes left/<h> before it reads the
   * record, so either it sees the chunk this fold gave the record and erases
   * the row itself, or this fold, which lists left/ after writing its rows,
   * sees the note and erases the row. Either way no row outlives its record.
   */
  async fold(limit = 5000): Promise<number> {
    const noted = (await this.noted()).slice(0, limit);
    const gone = noted.filter(({ found }) => !found);
    // A leave that stopped half-way (its function died): finished here, as it would have.
    const limitWrites = pLimit(concurrency);
    const halfLeft = noted.filter(({ found }) => found?.record.leaving);
    await Promise.all(halfLeft.map(({ h, found }) => limitWrites(() => this.finishLeave(h, found!.record))));
    const present = noted.flatMap(({ h, keys, found }) =>
      found && !found.record.leaving ? [{ h, keys, ...found }] : [],
    );

    // Rows without a blob yet go to the newest one, then to new ones, a thousand each.
    const names = await this.chunks();
    let current = names.at(-1) ?? chunkName(1);
    let room = this.rowsPerChunk - (names.length > 0 ? await this.rowCount(current) : 0);
    const assigned = new Map<string, string>();
    for (const { h, record } of present) {
      if (record.chunk) continue;
      if (room <= 0) {
        current = chunkName(Number(current) + 1);
        room = this.rowsPerChunk;
      }
      assigned.set(h, current);
      room--;
    }
    const filed = await Promise.all(
      present.map(({ h, keys, record, etag }) =>
        limitWrites(async () => {
          const chunk = record.chunk ?? assigned.get(h)!;
          if (record.chunk) return { h, keys, record, chunk };
          // File the record under its blob first, so that a leave from now on finds the row.
          const { modified } = await this.blobs.setJSON(signupKey(h), { ...record, chunk }, { onlyIfMatch: etag });
          if (modified) return { h, keys, record: { ...record, chunk }, chunk };
          const again = await this.update(h, (latest) => (latest.chunk ? latest : { ...latest, chunk }));
          // Not listed any more, or leaving: its leave takes care of the row.
          return again ? { h, keys, record: again, chunk: again.chunk! } : undefined;
        }),
      ),
    );

    const byChunk = new Map<string, BlobRecord[]>();
    for (const entry of filed) {
      if (entry) byChunk.set(entry.chunk, [...(byChunk.get(entry.chunk) ?? []), entry.record]);
    }
    await Promise.all(
      [...byChunk].map(([chunk, records]) =>
        limitWrites(() =>
          this.changeChunk(chunk, (rows) => {
            for (const record of records) rows[hashOf(record.emailKey)] = ledgerRow(record);
          }),
        ),
      ),
    );

    // Leaves that began while this fold read their records: erase the rows it may just have written.
    const { blobs: leftNotes } = await this.blobs.list({ prefix: "left/" });
    const now = this.clock().getTime();
    const leaving = new Map<string, number>();
    for (const { key } of leftNotes) {
      const [, h, at] = key.split("/");
      leaving.set(h!, Math.max(leaving.get(h!) ?? 0, Number(at)));
      if (Number(at) < now - leftNoteMs) await this.blobs.delete(key);
    }
    for (const [chunk, records] of byChunk) {
      const erase = records.flatMap((record) => {
        const at = leaving.get(hashOf(record.emailKey));
        return at === undefined ? [] : [[hashOf(record.emailKey), at] as const];
      });
      if (erase.length > 0) await this.eraseRows(chunk, erase);
    }

    // Done with: gone, or filed and owing nothing more. Only the notes read above; newer ones stay.
    const settled = [
      ...gone.flatMap(({ keys }) => keys),
      ...halfLeft.flatMap(({ keys }) => keys),
      ...filed.flatMap((entry) => (entry && !owes(entry.record) ? entry.keys : [])),
    ];
    await Promise.all(settled.map((key) => limitWrites(() => this.blobs.delete(key))));
    return filed.filter(Boolean).length;
  }

  private async rowCount(chunk: string): Promise<number> {
    const found = (await this.blobs.get(`ledger/${chunk}`, { type: "json", consistency: "strong" })) as Chunk | null;
    return Object.keys(found?.rows ?? {}).length;
  }

  /**
   * Every row, oldest first: the ledger, with the records of noted
   * addresses read afresh (the sweep has not filed their latest state yet).
   */
  private async rows(): Promise<LedgerRow[]> {
    const limit = pLimit(concurrency);
    const byHash = new Map<string, LedgerRow>();
    const chunks = await Promise.all(
      (await this.chunks()).map((chunk) =>
        limit(
          async () =>
            (await this.blobs.get(`ledger/${chunk}`, { type: "json", consistency: "strong" })) as Chunk | null,
        ),
      ),
    );
    for (const chunk of chunks) for (const [h, row] of Object.entries(chunk?.rows ?? {})) byHash.set(h, upgraded(row));
    for (const { h, found } of await this.noted()) {
      if (found && !found.record.leaving) byHash.set(h, ledgerRow(found.record));
      else byHash.delete(h);
    }
    return [...byHash.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async count(): Promise<number> {
    return (await this.rows()).length;
  }

  async confirmationCounts(): Promise<ConfirmationCounts> {
    const counts = { sent: 0, pending: 0, failed: 0 };
    for (const row of await this.rows()) {
      if (row.confirmationSentAt !== null) counts.sent++;
      else if (row.confirmationFailedAt !== null) counts.failed++;
      else counts.pending++;
    }
    return counts;
  }

  async failedConfirmations() {
    return (await this.rows()).flatMap((row) =>
      row.confirmationFailedAt === null
        ? []
        : [{ email: row.email, failedAt: row.confirmationFailedAt, error: row.confirmationError ?? "" }],
    );
  }

  async lastConfirmationError(): Promise<string | undefined> {
    const failing = (await this.rows())
      .filter((row) => row.confirmationError !== null && row.confirmationSentAt === null)
      .map((row) => ({ error: row.confirmationError!, at: row.confirmationFailedAt ?? row.confirmationNextAt ?? "" }))
      .sort((a, b) => b.at.localeCompare(a.at));
    return failing[0]?.error;
  }

  async departures(): Promise<number> {
    return (await this.blobs.list({ prefix: "departures/" })).blobs.length;
  }

  /** One list of keys; only a departure from before the how was in its key is read, one get each. */
  async departureCounts(): Promise<{ left: number; pruned: number }> {
    const counts = { left: 0, pruned: 0 };
    for (const { key } of (await this.blobs.list({ prefix: "departures/" })).blobs) {
      let how = /^departures\/.{24}-([a-z-]+)-[0-9a-f]{8}$/.exec(key)?.[1];
      if (how === undefined) how = ((await this.blobs.get(key, { type: "json" })) as { how?: string } | null)?.how;
      if (how === "pruned") counts.pruned++;
      else counts.left++;
    }
    return counts;
  }

  async statsRows(): Promise<StatsSignup[]> {
    return (await this.rows()).map(({ createdAt, utmSource, utmCampaign, ref, confirmedAt }) => ({
      createdAt,
      utmSource,
      utmCampaign,
      ref,
      confirmedAt,
    }));
  }

  async all(): Promise<Signup[]> {
    return (await this.rows()).map(signupOf);
  }
}
