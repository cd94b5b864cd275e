import { createHash } from "node:crypto";
import { atOnce, type BlobIO } from "./blobs/blob-io";
import type { Invites } from "./blobs/invites";
import { hourOf, layout } from "./blobs/layout";
import type { Ledger } from "./blobs/ledger";
import type { BlobRecord, Records } from "./blobs/records";
import { upgraded } from "./blobs-record-versions";
import type { StoreSecrets } from "./blobs/secrets";

/*
 * The Blobs store's migration, as sqlite-migrations.ts and postgres-migrations/ are the SQL stores': a record of an
 * earlier version is read at today's fields and state by blobs-record-versions.ts (upgraded), and the layout of its keys
 * before issue 52 is carried forward here.
 *
 * Before issue 52 a record was at signups/<the plain SHA-256 of its key>, which a list of addresses could match. Each
 * sweep carries a page of them forward (carryForward), and until none is left a request carries its own address's
 * first (carryOwn); then settings/layout says so, and no plain digest of an address is made again. An instance that
 * has read `keyed` there never looks again: from then on, no request of it touches this layout.
 */

/** How long an instance trusts that records of the earlier layout remain before it reads settings/layout again. */
const recheckMs = 60_000;

export class EarlierLayout {
  private known: { done: boolean; at: number } | undefined;

  constructor(
    private readonly io: BlobIO,
    private readonly parts: { secrets: StoreSecrets; records: Records; ledger: Ledger; invites: Invites },
  ) {}

  /** Whether this instance knows that nothing of the earlier layout is left (then it never reads it again). */
  get done(): boolean {
    return this.known?.done === true;
  }

  private async remains(): Promise<boolean> {
    const now = this.io.clock().getTime();
    if (this.known && (this.known.done || now - this.known.at < recheckMs)) return !this.known.done;
    const done =
      (await this.io.blobs.get(layout.setting("layout"), { type: "text", consistency: "strong" })) === "keyed";
    this.known = { done, at: now };
    return !done;
  }

  /** The record of `emailKey` of the earlier layout, if one is left, carried forward under its <k>. */
  async carryOwn(emailKey: string): Promise<void> {
    if (!(await this.remains())) return;
    const h = createHash("sha256").update(emailKey, "utf8").digest("hex");
    const earlier = await this.io.get<Record<string, unknown>>(layout.earlier(h));
    if (earlier) await this.carry(h, earlier);
  }

  /**
   * A page of the listing (a thousand) carried forward, none started past `deadline` (ms): each record moved leaves
   * the listing, so the next run goes on where this one stopped. Resolves with how many it carried.
   */
  async carryForward(deadline = Infinity): Promise<number> {
    if (!(await this.remains())) return 0;
    // The first page of the listing only: one list call a run, however many are left.
    const pages = this.io.blobs.list({ prefix: layout.earlierPrefix, paginate: true })[Symbol.asyncIterator]();
    const earlier: { key: string }[] = (await pages.next()).value?.blobs ?? [];
    if (earlier.length === 0) {
      await this.io.blobs.set(layout.setting("layout"), "keyed");
      this.known = { done: true, at: 0 };
    }
    const moved = await atOnce(earlier, async ({ key }) => {
      if (this.io.clock().getTime() > deadline) return 0;
      const record = await this.io.get<Record<string, unknown>>(key);
      if (record) await this.carry(key.slice(layout.earlierPrefix.length), record);
      return 1;
    });
    return moved.reduce<number>((sum, one) => sum + one, 0);
  }

  /**
   * signups/<h> moved to records/<k>: its notes, the record (unfiled: its row is filed anew under <k>), its invite
   * keys, then the earlier blobs deleted; a leave under way is finished. Two carrying one record at once leave one.
   */
  private async carry(h: string, stored: Record<string, unknown>): Promise<void> {
    const { secrets, records, ledger, invites } = this.parts;
    const record = upgraded(stored) as BlobRecord;
    if (!record.leaving) {
      const k = await secrets.key(record.emailKey);
      await Promise.all([records.note(k), record.optInSince && records.askedNote(k, record.optInSince)]);
      await records.create(k, { ...record, chunk: null, leaving: null });
      if (record.chunk) await ledger.eraseRows(record.chunk, [[h, Infinity]]);
      await invites.file(k, record);
      await Promise.all([
        invites.forget(h, { invitedBy: record.invitedBy, mailboxDigest: record.mailboxDigest, inviteCode: null }),
        record.optInSince && this.io.blobs.delete(layout.asked(hourOf(record.optInSince), h)),
      ]);
    } else await ledger.finishLeave(h, record);
    await this.io.blobs.delete(layout.earlier(h));
  }
}
