import { createHash } from "node:crypto";
import { add, type SignupRecord } from "../../signup-life/signup-life";
import type { Ledger } from "./ledger";
import { atOnce, recordKey, type BlobRecord } from "./records";

/*
 * Before issue 52 a record was at signups/<the plain SHA-256 of its key>, which a list of addresses could match. Each
 * sweep carries a page of them forward (carryForward), and until none is left a request carries its own address's
 * first (locate); then settings/layout says so, and no plain digest of an address is made again.
 */

/** How long an instance trusts that records of the earlier layout remain before it reads settings/layout again. */
const recheckMs = 60_000;
const carried = new WeakMap<Ledger, { done: boolean; at: number }>();

async function remains(store: Ledger): Promise<boolean> {
  const now = store.clock().getTime();
  const known = carried.get(store);
  if (known && (known.done || now - known.at < recheckMs)) return !known.done;
  const done = (await store.blobs.get("settings/layout", { type: "text", consistency: "strong" })) === "keyed";
  carried.set(store, { done, at: now });
  return !done;
}

/** An address's <k>, once its record of the earlier layout, if any, is carried forward. */
export async function locate(store: Ledger, emailKey: string): Promise<string> {
  const k = await store.key(emailKey);
  if (await remains(store)) {
    const h = createHash("sha256").update(emailKey, "utf8").digest("hex");
    const earlier = await store.blobs.get(`signups/${h}`, { type: "json", consistency: "strong" });
    if (earlier) await carry(store, h, earlier as Record<string, unknown>);
  }
  return k;
}

/**
 * A page of the listing (a thousand) carried forward, none started past `deadline` (ms): each record moved leaves
 * the listing, so the next run goes on where this one stopped. Resolves with how many it carried.
 */
export async function carryForward(store: Ledger, deadline = Infinity): Promise<number> {
  if (!(await remains(store))) return 0;
  // The first page of the listing only: one list call a run, however many are left.
  const pages = store.blobs.list({ prefix: "signups/", paginate: true })[Symbol.asyncIterator]();
  const earlier: { key: string }[] = (await pages.next()).value?.blobs ?? [];
  if (earlier.length === 0) {
    await store.blobs.set("settings/layout", "keyed");
    carried.set(store, { done: true, at: 0 });
  }
  const moved = await atOnce(earlier, async ({ key }) => {
    if (store.clock().getTime() > deadline) return 0;
    const record = await store.blobs.get(key, { type: "json", consistency: "strong" });
    if (record) await carry(store, key.slice("signups/".length), record as Record<string, unknown>);
    return 1;
  });
  return moved.reduce<number>((sum, one) => sum + one, 0);
}

/**
 * signups/<h> moved to records/<k>: its notes, the record (unfiled: its row is filed anew under <k>), its invite keys,
 * then the earlier blobs deleted; a leave under way is finished. Two carrying one record at once leave one record.
 */
async function carry(store: Ledger, h: string, stored: Record<string, unknown>): Promise<void> {
  const record = upgraded(stored) as BlobRecord;
  if (!record.leaving) {
    const k = await store.key(record.emailKey);
    await Promise.all([store.note(k), record.optInSince && store.askedNote(k, record.optInSince)]);
    await store.writeIf(recordKey(k), { ...record, chunk: null }, { onlyIfNew: true });
    if (record.chunk) await store.eraseRows(record.chunk, [[h, Infinity]]);
    await store.fileInvites(k, record);
    await Promise.all([
      record.invitedBy && record.mailbox && store.blobs.delete(`invites/${record.invitedBy}/${record.mailbox}/${h}`),
      record.optInSince && store.blobs.delete(`asked/${record.optInSince.slice(0, 13)}/${h}`),
    ]);
  } else await store.finishLeave(h, record);
  await store.blobs.delete(`signups/${h}`);
}

/** A new record from before every step (never asked), whose fields an earlier record or row lacks. */
const before = add({ email: "", emailKey: "", source: "netlify", earlier: true }, new Date(0), { inviterKnown: false });

/** A record or ledger row of the earlier layout as signup-life's: its bookkeeping under today's names. */
export function upgraded(stored: Record<string, unknown>): SignupRecord & Partial<BlobRecord> {
  const { attempts, claimedUntil, ...rest } = stored;
  const kept = Object.entries(rest).filter(([, value]) => value !== undefined);
  return {
    ...before,
    confirmationClaimedUntil: (claimedUntil as string | undefined) ?? null,
    confirmationAttempts: (attempts as number | undefined) ?? 0,
    ...Object.fromEntries(kept),
  } as SignupRecord;
}
