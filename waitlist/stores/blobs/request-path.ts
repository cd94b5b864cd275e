import * as life from "../../signup-life/signup-life";
import type { DepartureKind, ListedSignup, NewSignup } from "../store";
import { locate } from "./earlier-layout";
import { Ledger } from "./ledger";
import { mailboxCountsKey, recordKey, type BlobRecord } from "./records";

/*
 * A request: one address's blobs by key (a leave, one ledger blob too), a handful of round trips whatever the list's
 * size. The rules are signup-life's; here is where each record and note is kept, and in what order.
 */
export abstract class RequestPath extends Ledger {
  /** The notes first, whatever fails after; a listed address makes the same writes, then counts its repeat. */
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
    if (!added) await this.changeAt(k, life.repeat, { noted: true });
    return { added, createdAt: record.createdAt };
  }

  protected async change(emailKey: string, transition: (record: BlobRecord) => BlobRecord | undefined) {
    return this.changeAt(await locate(this, emailKey), transition);
  }

  /** A confirmed record's invite keys, also after a second press: a confirm that died before filing them. */
  protected override async confirmed(emailKey: string, record: BlobRecord): Promise<void> {
    await this.fileInvites(await locate(this, emailKey), record);
  }

  /** The record, and its invitees counted by one listing under its code (invites/). */
  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    const record = await this.read(await locate(this, emailKey));
    if (!record || record.leaving) return undefined;
    return life.listed(record, record.inviteCode ? await this.confirmedInvites(record.inviteCode) : 0);
  }

  /** In an order a sweep can finish after a crash: a note for a fold under way, the record marked, then the rest. */
  async remove(emailKey: string, how: DepartureKind, at: Date, digest?: string) {
    const k = await locate(this, emailKey);
    await this.leftNote(k, at.getTime());
    const marked = await this.markLeaving(k, how, at, { digest });
    if (!marked) return undefined;
    await this.note(k);
    return this.finishLeave(k, marked);
  }

  /** One more e-mail to `counter` on `day`, in the day's blob for its first two characters: two round trips. */
  async countMailboxMail(counter: string, day: string): Promise<number> {
    const counts = await this.swap<Record<string, number>>(mailboxCountsKey(day, counter), (found = {}) => ({
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
