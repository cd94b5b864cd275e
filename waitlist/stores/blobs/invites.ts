import { countsAsInvite, isMember } from "../../signup-life/rules";
import type { BlobIO } from "./blob-io";
import { kOf, layout } from "./layout";
import type { BlobRecord } from "./records";

/*
 * Invites by key: codes/<code> names a confirmed signup's <k> and mailbox digest; invites/<code>/<m>/<k> that <k> of
 * mailbox <m> came by <code> and counts (signup-life's countsAsInvite). An inviter's count is the <m>s under its code,
 * one listing: one per mailbox.
 */
export class Invites {
  constructor(private readonly io: BlobIO) {}
  /** The inviter an invite code names, when it is a confirmed signup's. */
  inviter(code: string): Promise<{ h: string; mailbox: string | null } | null> {
    return this.io.get(layout.code(code));
  }
  /** How many confirmed invitees `code` has now: the mailboxes under it, one listing. */
  async confirmedInvites(code: string): Promise<number> {
    return new Set((await this.io.keys(layout.invitesOf(code))).map((key) => kOf(key, 2))).size;
  }
  /** A confirmed record's invite keys, idempotent: its own code, and its invite under its inviter's if it counts. */
  async file(k: string, record: BlobRecord): Promise<void> {
    if (!isMember(record)) return;
    if (record.inviteCode) {
      await this.io.blobs.setJSON(layout.code(record.inviteCode), { h: k, mailbox: record.mailboxDigest });
    }
    const inviter = record.invitedBy && record.mailboxDigest ? await this.inviter(record.invitedBy) : null;
    if (inviter && countsAsInvite({ mailboxDigest: inviter.mailbox }, record)) {
      await this.io.blobs.set(layout.invite(record.invitedBy!, record.mailboxDigest!, k), "");
    }
  }
  /** A leaver's invite keys gone: its own code, and its invite under its inviter's. */
  async forget(k: string, record: Pick<BlobRecord, "inviteCode" | "invitedBy" | "mailboxDigest">): Promise<void> {
    await Promise.all([
      record.invitedBy &&
        record.mailboxDigest &&
        this.io.blobs.delete(layout.invite(record.invitedBy, record.mailboxDigest, k)),
      record.inviteCode && this.io.blobs.delete(layout.code(record.inviteCode)),
    ]);
  }
}
