import { randomBytes } from "node:crypto";
import { newInviteCode } from "../../invites";
import * as life from "../../signup-life/signup-life";
import type { Confirmation, DepartureKind, ListedSignup, NewSignup, OwedConfirmation } from "../store";
import { locate } from "./earlier-layout";
import { Ledger } from "./ledger";
import { recordKey, type BlobRecord } from "./records";

/*
 * What a signup, a confirm, a leave and the sending of one confirmation do: each reads and writes one address's blobs
 * by key (a leave, one ledger blob too), a handful of requests whatever the list's size. The rules are
 * signup-life's; here is only where each record and note is kept, and in what order.
 */
export class RequestPath extends Ledger {
  /**
   * The notes first: a record is never without them while it owes a confirmation or may expire, whatever fails
   * after. A listed address makes the same writes, then counts its repeat, so a repeat takes as long as a new one.
   */
  async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    const k = await locate(this, entry.emailKey);
    const inviterKnown = entry.invitedBy !== undefined && (await this.inviter(entry.invitedBy)) !== undefined;
    const record: BlobRecord = {
      ...life.add(entry, entry.at ?? this.clock(), { inviterKnown }),
      chunk: null,
      leaving: null,
    };
    await Promise.all([this.note(k), entry.earlier ? undefined : this.askedNote(k, record.createdAt)]);
    const added = await this.writeIf(recordKey(k), record, { onlyIfNew: true });
    if (!added) await this.change(k, life.repeat);
    return { added, createdAt: record.createdAt };
  }

  async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
    const claimed = await this.change(await locate(this, emailKey), (record) => life.claim(record, now, leaseMs));
    return claimed?.confirmationAttempts;
  }

  /** The record, and its invitees counted by one listing under its code (invites/). */
  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    const record = await this.read(await locate(this, emailKey));
    if (!record || record.leaving) return undefined;
    return life.listed(record, record.inviteCode ? await this.confirmedInvites(record.inviteCode) : 0);
  }

  /** The note first, so the sweep files the row and the invite blobs whatever fails after (fileInvites). */
  async confirm(emailKey: string, { inviteCode = newInviteCode(), ...confirmation }: Confirmation) {
    const k = await locate(this, emailKey);
    await this.note(k);
    let found: { record: BlobRecord; first: boolean } | undefined;
    await this.change(k, (record) => {
      found = life.confirm(record, { ...confirmation, inviteCode });
      return found?.first ? found.record : undefined;
    });
    if (!found) return undefined;
    await this.fileInvites(k, found.record);
    return { confirmedAt: found.record.confirmedAt!, first: found.first, inviteCode: found.record.inviteCode! };
  }

  /** Read first: a repeat signup of a confirmed address, the common case, writes nothing. */
  async askToConfirm(emailKey: string, at: Date, options?: { resendAfterMs?: number }) {
    const k = await locate(this, emailKey);
    const current = await this.read(k);
    if (!current || current.leaving || !life.ask(current, at, options)) return undefined;
    // Asked from the first asking on: a repeat signup never moves the day the retention counts from.
    await Promise.all([this.note(k), this.askedNote(k, current.optInSince ?? at.toISOString())]);
    const asked = await this.change(k, (record) => life.ask(record, at, options));
    return asked && (life.owedOf(asked) satisfies OwedConfirmation);
  }

  /** A record never asked before (owed its mail since before the confirm step) has its asked/ note written first. */
  async markConfirmationSent(emailKey: string, at: Date): Promise<void> {
    const k = await locate(this, emailKey);
    let unasked = false;
    const send = () =>
      this.change(k, (record) =>
        record.optInSince === null && !unasked ? void (unasked = true) : life.sent(record, at),
      );
    await send();
    if (!unasked) return;
    await this.askedNote(k, at.toISOString());
    await send();
  }

  async releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    await this.change(await locate(this, emailKey), (record) => life.release(record, error, retryAt));
  }

  async failConfirmation(emailKey: string, error: string, at: Date, { capped = false } = {}): Promise<void> {
    await this.change(await locate(this, emailKey), (record) => life.fail(record, error, at, capped));
  }

  /**
   * In an order that leaves no copy behind and that the sweep can finish after a crash: a note for a sweep folding
   * this address right now, the record marked as leaving (after which no sweep files it anew), then finishLeave().
   */
  async remove(emailKey: string, how: DepartureKind, at: Date, digest?: string) {
    const k = await locate(this, emailKey);
    await this.leftNote(k, at.getTime());
    const id = randomBytes(4).toString("hex");
    const marked = await this.change(k, (record) => ({
      ...record,
      leaving: { ...life.leave(record, how, at, digest), id },
    }));
    if (!marked) {
      // Not listed; or a leave that stopped half-way, which this one finishes.
      const half = await this.read(k);
      return half?.leaving ? this.finishLeave(k, half) : undefined;
    }
    await this.note(k);
    return this.finishLeave(k, marked);
  }

  /**
   * In the record (erased with it), by compare-and-swap: of two runs at once one takes the person. The note first, so
   * the sweep files it in the founders' ledger.
   */
  async noteAnnouncement(emailKey: string, id: string, { undo = false }: { undo?: boolean } = {}): Promise<boolean> {
    life.checkAnnouncementId(id);
    const k = await locate(this, emailKey);
    await this.note(k);
    return (await this.change(k, (record) => life.announce(record, id, undo))) !== undefined;
  }

  /**
   * One more e-mail to the mailbox `counter` on `day`, in the day's blob for its first two characters, by
   * compare-and-swap: of senders counting at once none sees a count another saw. Two round trips, whatever the day.
   */
  async countMailboxMail(counter: string, day: string): Promise<number> {
    const counts = await this.swap<Record<string, number>>(`mailbox/${day}/${counter.slice(0, 2)}`, (found = {}) => ({
      ...found,
      [counter]: (found[counter] ?? 0) + 1,
    }));
    return counts![counter]!;
  }

  /** settings/once-<name>, written only if new: of instances racing, one write is made (Netlify's onlyIfNew). */
  once(name: string): Promise<boolean> {
    return this.writeIf(`settings/once-${name}`, this.clock().toISOString(), { onlyIfNew: true });
  }
}
