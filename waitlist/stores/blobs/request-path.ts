import { noAttribution } from "../../attribution";
import { newInviteCode } from "../../invites";
import type { Confirmation, DepartureKind, ListedSignup, NewSignup, OwedConfirmation, WaitlistStore } from "../store";
import type { Ledger } from "./ledger";
import {
  afterRefusals,
  BlobsStoreError,
  hashOf,
  leavingMark,
  maxAttempts,
  owes,
  signupKey,
  unchangedSince,
  type BlobRecord,
  type Records,
} from "./records";

/*
 * What a signup, a confirm, a leave and the sending of one confirmation do:
 * each reads and writes one address's blobs by key (and a leave, one ledger
 * blob), a handful of requests whatever the list's size.
 */

export class RequestPath implements Omit<WaitlistStore, "secret" | "close" | "once"> {
  constructor(
    private readonly records: Records,
    private readonly ledger: Ledger,
  ) {}

  async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    const h = hashOf(entry.emailKey);
    const createdAt = (entry.at ?? this.records.clock()).toISOString();
    const record: BlobRecord = {
      email: entry.email,
      emailKey: entry.emailKey,
      createdAt,
      source: entry.source,
      confirmationSentAt: entry.confirmationSentAt?.toISOString() ?? null,
      confirmationFailedAt: null,
      confirmationError: null,
      confirmationCapped: false,
      confirmedAt: null,
      privacyPolicyAtSignup: entry.privacyPolicy ?? null,
      privacyPolicyAtConfirm: null,
      consentAtSignup: entry.consent ?? null,
      consentAtConfirm: null,
      optInSince: entry.earlier ? null : createdAt,
      ...noAttribution,
      ...entry.attribution,
      inviteCode: null,
      // Kept only when it is a confirmed signup's code: an unknown one is not kept.
      invitedBy: entry.invitedBy && (await this.records.inviter(entry.invitedBy)) ? entry.invitedBy : null,
      mailbox: entry.mailbox ?? null,
      attempts: 0,
      claimedUntil: null,
      confirmationNextAt: null,
      chunk: null,
      leaving: null,
    };
    // The notes first: a record is never without them while it owes a confirmation or may expire, whatever fails
    // after. A listed address makes the same writes, so a repeat takes as long as a new signup.
    await Promise.all([this.records.note(h), entry.earlier ? undefined : this.records.askedNote(h, createdAt)]);
    return { added: await this.records.writeIf(signupKey(h), record, { onlyIfNew: true }), createdAt };
  }

  async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
    const written = await this.records.update(hashOf(emailKey), (record) => {
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

  /** The record, and its invitees counted by one listing under its code (records.ts's invites/). */
  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    const found = await this.records.read(hashOf(emailKey));
    if (!found || found.record.leaving) return undefined;
    const { email, createdAt, confirmedAt, inviteCode } = found.record;
    const confirmedInvites = inviteCode ? await this.records.confirmedInvites(inviteCode) : 0;
    return { email, createdAt, confirmedAt, inviteCode, confirmedInvites };
  }

  /**
   * The first confirmation is kept, with the signup's invite code. The note first, so the sweep files it in the
   * ledger, and files its invite blobs, whatever fails after (Records.fileInvites).
   */
  async confirm(
    emailKey: string,
    { createdAt, at, privacyPolicy, consent = null, inviteCode = newInviteCode() }: Confirmation,
  ) {
    const h = hashOf(emailKey);
    await this.records.note(h);
    let earlier: BlobRecord | undefined;
    const written = await this.records.update(h, (record) => {
      if (record.createdAt !== createdAt) return undefined;
      if (record.confirmedAt !== null) {
        earlier = record;
        return undefined;
      }
      return {
        ...record,
        confirmedAt: at.toISOString(),
        privacyPolicyAtConfirm: privacyPolicy,
        consentAtConfirm: consent,
        inviteCode: record.inviteCode ?? inviteCode,
      };
    });
    const kept = written ?? earlier;
    if (!kept) return undefined;
    await this.records.fileInvites(h, kept);
    return { confirmedAt: kept.confirmedAt!, first: written !== undefined, inviteCode: kept.inviteCode! };
  }

  async askToConfirm(
    emailKey: string,
    at: Date,
    { resendAfterMs }: { resendAfterMs?: number } = {},
  ): Promise<OwedConfirmation | undefined> {
    const h = hashOf(emailKey);
    const again = resendAfterMs !== undefined;
    const sentBefore = new Date(at.getTime() - (resendAfterMs ?? 0)).toISOString();
    const asks = (record: BlobRecord) => {
      // The last e-mail, or the day its mailbox had its e-mails (a refused one is left out just before).
      const last = record.confirmationSentAt ?? record.confirmationFailedAt;
      return (
        record.confirmedAt === null &&
        (!again || record.confirmationFailedAt === null || record.confirmationCapped) &&
        (record.optInSince === null || (again && last !== null && last <= sentBefore))
      );
    };
    // Read first: a repeat signup of a confirmed address, the common case, writes nothing.
    const current = await this.records.read(h);
    if (!current || current.record.leaving || !asks(current.record)) return undefined;
    // Asked from the first asking on: a repeat signup never moves the day the retention counts from.
    await Promise.all([this.records.note(h), this.records.askedNote(h, current.record.optInSince ?? at.toISOString())]);
    const written = await this.records.update(h, (record) =>
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
            confirmationCapped: false,
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
      await this.records.update(h, (record) => {
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
      await this.records.askedNote(h, at.toISOString());
      noted = true;
    }
  }

  async releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    await this.records.update(hashOf(emailKey), (record) => ({
      ...record,
      claimedUntil: null,
      confirmationError: error.slice(0, 500),
      confirmationNextAt: retryAt.toISOString(),
    }));
  }

  async failConfirmation(emailKey: string, error: string, at: Date, { capped = false } = {}): Promise<void> {
    await this.records.update(hashOf(emailKey), (record) => ({
      ...record,
      claimedUntil: null,
      confirmationError: error.slice(0, 500),
      confirmationFailedAt: at.toISOString(),
      confirmationNextAt: null,
      confirmationCapped: capped,
    }));
  }

  /**
   * In an order that leaves no copy behind and that the sweep can finish
   * after a crash: a note for a sweep folding this address right now
   * (fold() in ledger.ts), the record marked as leaving (after which no sweep
   * files it anew), its ledger row erased, the record deleted, the departure
   * counted.
   */
  async remove(emailKey: string, how: DepartureKind, at: Date, digest?: string) {
    const h = hashOf(emailKey);
    await this.records.leftNote(h, at.getTime());
    // Only a confirmed member's digest is kept: nobody else was ever handed to a launch tool (waitlist/leavers.ts).
    const marked = await this.records.update(h, (record) => ({
      ...record,
      leaving: leavingMark(at, how, record.confirmedAt ? digest : undefined),
    }));
    if (!marked) {
      // Not listed; or a leave that stopped half-way, which this one finishes.
      const half = await this.records.read(h);
      if (!half?.record.leaving) return undefined;
      return this.ledger.finishLeave(h, half.record);
    }
    await this.records.note(h);
    return this.ledger.finishLeave(h, marked);
  }

  /**
   * The announcements a confirmed signup was sent, in its record (erased with it): noted by compare-and-swap, so of
   * two runs at once one takes the person; taken back after a send that failed.
   */
  async noteAnnouncement(emailKey: string, id: string, { undo = false }: { undo?: boolean } = {}): Promise<boolean> {
    if (!/^[a-z0-9-]+$/i.test(id)) throw new Error(`An announcement's id is letters, digits and "-" (got "${id}").`);
    const written = await this.records.update(hashOf(emailKey), (record) => {
      const sent = record.announcements ?? [];
      if (undo) return sent.includes(id) ? { ...record, announcements: sent.filter((one) => one !== id) } : undefined;
      return record.confirmedAt !== null && !sent.includes(id)
        ? { ...record, announcements: [...sent, id] }
        : undefined;
    });
    return written !== undefined;
  }

  /**
   * One more e-mail to the mailbox `counter` on `day`: its count in the day's blob for its first two characters
   * (records.ts's mailbox/), changed by compare-and-swap, so that of senders counting at the same moment (a burst of
   * signups, each in a function instance of its own) none sees a count another saw. A read and a write: two round
   * trips, whatever the day's number of e-mails.
   */
  async countMailboxMail(counter: string, day: string): Promise<number> {
    const key = mailboxKey(day, counter);
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      if (attempt > 0) await afterRefusals(attempt);
      const found = await this.records.readJSON(key);
      const counts = (found?.data ?? {}) as Record<string, number>;
      const n = (counts[counter] ?? 0) + 1;
      const condition = found ? unchangedSince(found.etag, key) : { onlyIfNew: true as const };
      if (await this.records.writeIf(key, { ...counts, [counter]: n }, condition)) return n;
    }
    throw new BlobsStoreError(`${key} kept changing under ${maxAttempts} writes; try again.`);
  }
}

/** The blob holding `counter`'s count of `day`: one of at most 256 a day (records.ts). */
export const mailboxKey = (day: string, counter: string) => `mailbox/${day}/${counter.slice(0, 2)}`;
