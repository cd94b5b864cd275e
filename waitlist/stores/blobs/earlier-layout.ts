import { createHash } from "node:crypto";
import pLimit from "p-limit";
import type { SignupRecord } from "../../signup-life/signup-life";
import type { Ledger } from "./ledger";
import { concurrency, recordKey, type BlobRecord } from "./records";

/*
 * The layout before issue 52 kept each record at signups/<h>, <h> the plain SHA-256 of the address's key: anyone
 * holding a list of addresses could match them. This layout keys everything by a keyed digest (records.ts). A site
 * deployed with records of the earlier layout keeps every one of them: the scheduled sweep carries them forward a
 * batch at a time until its deadline (carryForward, from fold()), and until none is left, a request for an address
 * carries its own forward first (locate). Once the listing of signups/ is empty, settings/layout says so, and no
 * plain digest of an address is ever made again. A store made with this version has none to carry (records.ts).
 */

/** How long an instance trusts that records of the earlier layout remain before it reads settings/layout again. */
const recheckMs = 60_000;
const carried = new WeakMap<Ledger, { done: boolean; at: number }>();

/** Whether records of the earlier layout may remain: settings/layout, read at most once a minute until it says so. */
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
 * Carries records of the earlier layout forward, `concurrency` at a time, a page of the listing (a thousand) at most
 * and none started past `deadline` (ms): each moved record leaves the listing, so the next run goes on where this one
 * stopped. When the listing is empty, settings/layout says so. Resolves with how many it carried.
 */
export async function carryForward(store: Ledger, deadline = Infinity): Promise<number> {
  if (!(await remains(store))) return 0;
  const { blobs: earlier } = await store.blobs.list({ prefix: "signups/" });
  if (earlier.length === 0) {
    await store.blobs.set("settings/layout", "keyed");
    carried.set(store, { done: true, at: 0 });
    return 0;
  }
  const limit = pLimit(concurrency);
  const moved = await Promise.all(
    earlier.slice(0, 1000).map(({ key }) =>
      limit(async () => {
        if (store.clock().getTime() > deadline) return 0;
        const record = await store.blobs.get(key, { type: "json", consistency: "strong" });
        if (record) await carry(store, key.slice("signups/".length), record as Record<string, unknown>);
        return 1;
      }),
    ),
  );
  return moved.reduce<number>((sum, one) => sum + one, 0);
}

/**
 * One record moved from signups/<h> to records/<k>: its notes first, then the record, unfiled so the sweep files its
 * row anew under <k> (the row under <h> erased), its invite blobs under <k>, then the earlier blobs deleted. Idempotent:
 * a request and the sweep carrying one record at once both end with the one record. A leave under way is finished.
 */
async function carry(store: Ledger, h: string, stored: Record<string, unknown>): Promise<void> {
  const record = upgraded(stored) as BlobRecord;
  if (record.leaving) return void (await store.finishLeave(h, record).then(() => store.blobs.delete(`signups/${h}`)));
  const k = await store.key(record.emailKey);
  await Promise.all([store.note(k), record.optInSince && store.askedNote(k, record.optInSince)]);
  await store.writeIf(recordKey(k), { ...record, chunk: null }, { onlyIfNew: true });
  if (record.chunk) await store.eraseRows(record.chunk, [[h, Infinity]]);
  await store.fileInvites(k, record);
  await Promise.all([
    record.invitedBy && record.mailbox && store.blobs.delete(`invites/${record.invitedBy}/${record.mailbox}/${h}`),
    record.optInSince && store.blobs.delete(`asked/${record.optInSince.slice(0, 13)}/${h}`),
  ]);
  await store.blobs.delete(`signups/${h}`);
}

/**
 * A record or ledger row of the earlier layout as signup-life's: its bookkeeping under today's names, and the fields
 * of steps added since (the confirm step, the daily cap, invites, repeats) as a record made before them has them.
 */
export function upgraded(stored: Record<string, unknown>): SignupRecord & Partial<BlobRecord> {
  const { attempts, claimedUntil, ...rest } = stored;
  const fields = ["confirmedAt", "privacyPolicyAtSignup", "privacyPolicyAtConfirm", "optInSince", "consentAtSignup"];
  const empty = [...fields, "consentAtConfirm", "inviteCode", "invitedBy", "mailbox", "askedAt", "confirmationNextAt"];
  return {
    ...Object.fromEntries(empty.map((name) => [name, null])),
    confirmationClaimedUntil: claimedUntil ?? null,
    confirmationAttempts: attempts ?? 0,
    confirmationCapped: false,
    repeatSignups: 0,
    announcements: [],
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
  } as unknown as SignupRecord;
}
