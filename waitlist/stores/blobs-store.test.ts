import { noteSigner, signerProblem } from "../leave-signer";
import { createHash, createHmac, scryptSync } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { getStore } from "@netlify/blobs";
import { blobsStore, blobsStoreName, type BlobsStore } from "./blobs-store";
import { maxAttempts } from "./blobs/blob-io";
import { pruneUnconfirmed } from "../prune";
import { createConfirmations } from "../mail/confirmations";
import type { Mailer } from "../mail/mailer";
import { testSite } from "../../test/support/site-settings";
import { describeStoreContract, type StoreUnderTest } from "./store.contract";
import { startLocalBlobs, type LocalBlobs } from "../../test/support/blobs";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function blobsHarness(): StoreUnderTest {
  let blobs: (LocalBlobs & { directory: string }) | undefined;
  const open = async () => {
    blobs ??= await startLocalBlobs();
    return blobsStore(blobs.store());
  };
  return {
    open,
    reopen: open,
    settle: (store) => (store as BlobsStore).fold(),
    snapshot: async () => {
      await blobs!.settled();
      const files = readdirSync(blobs!.directory, { recursive: true, withFileTypes: true }).filter((entry) =>
        entry.isFile(),
      );
      return Object.fromEntries(
        files
          .map((entry) => path.join(entry.parentPath, entry.name))
          .sort()
          .map((file) => [path.relative(blobs!.directory, file), readFileSync(file, "utf8")]),
      );
    },
    cleanup: async () => blobs?.stop(),
  };
}

describeStoreContract("Netlify Blobs", blobsHarness);

describe("BlobsStore", () => {
  let blobs: LocalBlobs;
  beforeEach(async () => {
    blobs = await startLocalBlobs();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await blobs.stop();
  });

  const at = (ms: number) => new Date(Date.UTC(2026, 10, 1) + ms);
  const add = (store: BlobsStore, n: number) =>
    store.add({ email: `p${n}@example.com`, emailKey: `p${n}@example.com`, source: "netlify", at: at(n) });
  const count = async (type: string, during: () => Promise<unknown>) => {
    await blobs.settled();
    blobs.operations.length = 0;
    await during();
    await blobs.settled();
    return blobs.operations.filter((operation) => operation.type === type).length;
  };

  it("walks the backlog afresh for a batch after one that read all of it: nothing due is skipped for a sweep", async () => {
    const store = blobsStore(blobs.store());
    for (const email of ["due1@example.com", "due2@example.com"]) {
      await store.add({ email, emailKey: email, source: "netlify" });
    }
    // The first batch reads the whole backlog; the next, the same two again, still owed.
    expect(await store.dueConfirmations(new Date(Date.now() + 1_000), 2)).toHaveLength(2);
    expect(await store.dueConfirmations(new Date(Date.now() + 1_000), 2)).toHaveLength(2);
  });

  it("sends one still owed behind more notes of mailed records than a batch, as after a mail outage", async () => {
    // 60 signups mailed (their notes stay until a fold files their rows) and one owed, whose note the walk reads last.
    const mailing = blobsStore(blobs.store());
    for (let n = 0; n < 60; n++) {
      await add(mailing, n);
      await mailing.claimConfirmation(`p${n}@example.com`, { now: at(n), leaseMs: 60_000 });
      await mailing.markConfirmationSent(`p${n}@example.com`, at(n));
    }
    const store = blobsStore(blobs.store(), { readsPerCall: 10 });
    await add(store, 60);
    const noted = [
      ...new Set((await blobs.store().list({ prefix: "pending/" })).blobs.map(({ key }) => key.split("/")[1])),
    ];
    expect(noted).toHaveLength(61);
    const owed = noted.indexOf(await store.key("p60@example.com"));
    // The walk starts at a note drawn at random: here the one after the owed one's.
    jest.spyOn(Math, "random").mockReturnValueOnce((((owed + 1) % noted.length) + 0.5) / noted.length);
    const sent: string[] = [];
    const mailer: Mailer = { destination: "test", send: async ({ to }) => void sent.push(String(to)), close: () => {} };
    const confirmations = createConfirmations({
      ...testSite,
      store,
      mailer,
      linkSecret: "s".repeat(32),
      log: () => {},
    });
    // A batch's worth of 10 finds none due; the sweep reads on, within its time, to the one owed.
    expect(await confirmations.sendDue(Date.now() + 60_000)).toEqual({
      sent: 1,
      retrying: 0,
      refused: 0,
      held: 0,
      more: false,
    });
    expect(sent).toEqual(["p60@example.com"]);
  });

  it("lets in a confirmed signup whose record was written before waves, and counts it in no wave until then", async () => {
    const store = blobsStore(blobs.store());
    const createdAt = at(0).toISOString();
    await store.add({ email: "old@example.com", emailKey: "old@example.com", source: "netlify", at: at(0) });
    await store.confirm("old@example.com", { createdAt, at: at(1), privacyPolicy: null });
    // Its record as a version before waves wrote it: no wave, no time let in, no e-mail state.
    const key = `records/${await store.key("old@example.com")}`;
    const {
      wave: _wave,
      letInAt: _at,
      letInMail: _mail,
      ...before
    } = (await blobs.store().get(key, { type: "json" })) as Record<string, unknown>;
    await blobs.store().setJSON(key, before);
    expect((await store.all()).map(({ wave, letInMail }) => [wave, letInMail])).toEqual([[null, null]]);
    expect(await store.letIn("old@example.com", { wave: 1, at: at(2), createdAt, mail: false })).toBe(true);
    await store.fold();
    expect(await store.all()).toEqual([expect.objectContaining({ wave: 1, letInMail: "launch-tool" })]);
  });

  it("files the list in blobs of so many rows, so reading the list costs a get per blob and one list", async () => {
    // Ten rows a blob here, a thousand on Netlify: the same arithmetic, a hundred times fewer signups to make.
    const store = blobsStore(blobs.store(), { chunkRows: 10 });
    await Promise.all(Array.from({ length: 25 }, (_, n) => add(store, n)));
    await store.fold();
    expect((await blobs.store().list({ prefix: "ledger/" })).blobs.map(({ key }) => key)).toEqual([
      "ledger/000001",
      "ledger/000002",
      "ledger/000003",
    ]);
    // Everything still owes its confirmation, so the notes stay: mark them sent and fold again to clear them.
    await Promise.all(
      Array.from({ length: 25 }, (_, n) => store.markConfirmationSent(`p${n}@example.com`, at(3_000_000))),
    );
    await store.fold();
    expect((await blobs.store().list({ prefix: "pending/" })).blobs).toEqual([]);
    let rows: Awaited<ReturnType<BlobsStore["all"]>> = [];
    expect(await count("get", async () => (rows = await store.all()))).toBe(3);
    expect(rows).toHaveLength(25);
    expect(rows[0]).toMatchObject({ email: "p0@example.com", confirmationSentAt: at(3_000_000).toISOString() });
    expect(rows.map((row) => row.createdAt)).toEqual([...rows.map((row) => row.createdAt)].sort());
  });

  it("keeps no row of an address that leaves while a sweep is folding it", async () => {
    const plain = blobsStore(blobs.store());
    await add(plain, 1);
    await add(plain, 2);
    await plain.fold();
    await add(plain, 1); // a repeat: the address is noted again, so the next fold writes its row again

    // A sweep that has read the records, held up just before it writes the ledger: the leave runs then, to the end.
    const client = blobs.store();
    const setJSON = client.setJSON.bind(client);
    let leave: Promise<unknown> | undefined;
    client.setJSON = async (key, data, options) => {
      if (key.startsWith("ledger/") && !leave) {
        leave = plain.remove("p1@example.com", "link", at(10_000));
        await leave;
      }
      return setJSON(key, data, options);
    };
    await blobsStore(client).fold();
    expect(leave).toBeDefined();

    const rows = async () => {
      const chunk = (await blobs.store().get("ledger/000001", { type: "json" })) as {
        rows: Record<string, { email: string }>;
      };
      return Object.values(chunk.rows).map((row) => row.email);
    };
    expect(await rows()).toEqual(["p2@example.com"]);
    expect((await plain.all()).map((row) => row.email)).toEqual(["p2@example.com"]);
  });

  it("finishes a leave whose function died half-way: the sweep erases the row and the record, and counts it", async () => {
    const store = blobsStore(blobs.store());
    await add(store, 1);
    await store.fold();
    // What remove() writes before it erases anything, and nothing after: the function was killed there.
    const client = blobs.store();
    const setJSON = client.setJSON.bind(client);
    client.setJSON = async (key, data, options) => {
      const result = await setJSON(key, data, options);
      if (key.startsWith("records/") && (data as { leaving?: unknown }).leaving) throw new Error("killed");
      return result;
    };
    await expect(blobsStore(client).remove("p1@example.com", "one-click", at(5_000))).rejects.toThrow("killed");
    expect(await store.pendingConfirmations()).toEqual([]);

    await store.add({ email: "p9@example.com", emailKey: "p9@example.com", source: "netlify", at: at(9) });
    await store.fold();
    expect((await store.all()).map((row) => row.email)).toEqual(["p9@example.com"]);
    expect(await store.departures()).toBe(1);
    expect((await blobs.store().list({ prefix: "records/" })).blobs).toHaveLength(1);
  });

  it("tells pruned from left by the keys alone, and reads only the departures filed before the how was in the key", async () => {
    const store = blobsStore(blobs.store());
    await add(store, 1);
    await add(store, 2);
    await store.remove("p1@example.com", "link", at(1_000));
    await store.remove("p2@example.com", "pruned", at(2_000));
    // Two departures as they were filed before: departures/<iso>-<r>, the how in the blob only.
    const client = blobs.store();
    await client.setJSON(`departures/${at(3_000).toISOString()}-0a1b2c3d`, { how: "pruned" });
    await client.setJSON(`departures/${at(4_000).toISOString()}-deadbeef`, { how: "one-click" });
    expect(await count("get", () => store.departureCounts())).toBe(2);
    expect(await store.departureCounts()).toEqual({ left: 2, pruned: 2, afterWave: 0 });
    expect(await store.departures()).toBe(4);
  });

  /**
   * A store as the layout before issue 52 left it: each record at signups/<the plain SHA-256 of its key>, its ledger
   * row, pending and asked/ notes and invite blobs under that hash, bookkeeping under the names of then; the oldest
   * record from before the confirm step (no consent fields at all).
   */
  async function earlierLayout() {
    // The fields as they were named then: no state (its times said it), the mailbox's digest as `mailbox`.
    const then = ({ state: _state, mailboxDigest: mailbox, ...fields }: Record<string, unknown>) => ({
      ...fields,
      mailbox,
      confirmationCapped: false,
    });
    const store = blobsStore(blobs.store());
    for (const n of [1, 2, 3]) await add(store, n);
    await store.markConfirmationSent("p1@example.com", at(1_000));
    const { inviteCode } = (await store.confirm("p2@example.com", {
      createdAt: at(2).toISOString(),
      at: at(5_000),
      privacyPolicy: "p",
    }))!;
    await store.add({
      email: "p4@example.com",
      emailKey: "p4@example.com",
      source: "netlify",
      at: at(4),
      invitedBy: inviteCode,
      mailboxDigest: "m4",
    });
    await store.confirm("p4@example.com", { createdAt: at(4).toISOString(), at: at(6_000), privacyPolicy: "p" });
    await store.fold();
    const client = blobs.store();
    const rename = (key: string, k: string, h: string) => key.replace(k, h).replace(/^records\//, "signups/");
    const keys = (await client.list()).blobs.map(({ key }) => key);
    for (const email of ["p1", "p2", "p3", "p4"].map((name) => `${name}@example.com`)) {
      const [k, h] = [await store.key(email), sha256(email)];
      for (const key of keys.filter((one) => one.includes(k))) {
        const json = /^(records|codes)\//.test(key);
        const data = json ? ((await client.get(key, { type: "json" })) as Record<string, unknown>) : null;
        if (key.startsWith("records/")) {
          const {
            confirmationAttempts: attempts,
            confirmationClaimedUntil: claimedUntil,
            repeatSignups: _r,
            announcements: _a,
            ...rest
          } = data!;
          const old =
            email === "p1@example.com"
              ? { ...rest, confirmedAt: undefined, optInSince: undefined, consentAtSignup: undefined }
              : rest;
          await client.setJSON(rename(key, k, h), { ...then(old), attempts, claimedUntil });
        } else if (key.startsWith("codes/")) await client.setJSON(key, { ...data, h });
        else await client.set(rename(key, k, h), "");
        if (!key.startsWith("codes/")) await client.delete(key);
      }
      const ledger = (await client.get("ledger/000001", { type: "json" })) as {
        rows: Record<string, Record<string, unknown>>;
      };
      ledger.rows[h] = then(ledger.rows[k]!);
      delete ledger.rows[k];
      await client.setJSON("ledger/000001", ledger);
    }
    await Promise.all(["settings/layout", "settings/record-secret"].map((key) => client.delete(key)));
    return inviteCode;
  }

  it("carries a store of the earlier layout forward, no signup lost, and keeps no plain hash of an address", async () => {
    const inviteCode = await earlierLayout();
    const client = blobs.store();
    expect((await client.list({ prefix: "signups/" })).blobs).toHaveLength(4);
    const store = blobsStore(blobs.store());
    // A request for an address carries its record forward first: a repeat is counted on it, not made anew.
    await expect(
      store.add({ email: "p3@example.com", emailKey: "p3@example.com", source: "netlify" }),
    ).resolves.toMatchObject({ added: false });
    await expect(store.lookup("p2@example.com")).resolves.toMatchObject({ inviteCode, confirmedInvites: 1 });
    // A run past its deadline carries nothing more; the next sweep carries the rest, a page at a time, then files
    // them all under their keyed digests.
    await store.fold({ deadline: 0 });
    expect((await client.list({ prefix: "signups/" })).blobs).toHaveLength(2);
    await store.fold();
    expect((await client.list({ prefix: "signups/" })).blobs).toEqual([]);
    // The next run finds none left, and says so: no request reads the earlier layout again.
    await store.fold();
    await expect(client.get("settings/layout", { type: "text" })).resolves.toBe("keyed");
    const rows = await store.all();
    expect(
      rows.map(({ email, confirmedAt, optInSince, repeatSignups }) => ({
        email,
        confirmed: confirmedAt !== null,
        optInSince,
        repeatSignups,
      })),
    ).toEqual([
      // From before the confirm step: unconfirmed and never asked.
      { email: "p1@example.com", confirmed: false, optInSince: null, repeatSignups: 0 },
      { email: "p2@example.com", confirmed: true, optInSince: at(2).toISOString(), repeatSignups: 0 },
      { email: "p3@example.com", confirmed: false, optInSince: at(3).toISOString(), repeatSignups: 1 },
      { email: "p4@example.com", confirmed: true, optInSince: at(4).toISOString(), repeatSignups: 0 },
    ]);
    await expect(store.lookup("p2@example.com")).resolves.toMatchObject({ confirmedInvites: 1 });
    await expect(store.expiredUnconfirmedTidying(at(100 * 86_400_000), 10)).resolves.toEqual([
      expect.objectContaining({ email: "p3@example.com" }),
    ]);
    // ask-to-confirm still reaches the one from before the confirm step.
    await expect(store.askToConfirm("p1@example.com", at(2_000))).resolves.toMatchObject({ email: "p1@example.com" });
    // Nowhere a key, nor a ledger row's, holds the plain SHA-256 of an address.
    const everything = JSON.stringify(
      await Promise.all((await client.list()).blobs.map(async ({ key }) => [key, await client.get(key)])),
    );
    for (const n of [1, 2, 3, 4]) expect(everything).not.toContain(sha256(`p${n}@example.com`));
    // A leave removes a carried record whole.
    await store.remove("p4@example.com", "link", at(7_000));
    await store.fold();
    await expect(store.lookup("p2@example.com")).resolves.toMatchObject({ confirmedInvites: 0 });
    expect((await store.all()).map((row) => row.email)).toEqual(["p1@example.com", "p2@example.com", "p3@example.com"]);
  });

  it("derives no key of a new store from a plain SHA-256 of an address", async () => {
    const store = blobsStore(blobs.store());
    await add(store, 1);
    await store.confirm("p1@example.com", { createdAt: at(1).toISOString(), at: at(5_000), privacyPolicy: "p" });
    await store.fold();
    const keys = (await blobs.store().list()).blobs.map(({ key }) => key).join("\n");
    expect(keys).toMatch(/^records\//m);
    expect(keys).not.toContain(sha256("p1@example.com"));
  });

  it("refuses to make a new record key while it keeps records, and says what to restore: a new one would lose them all", async () => {
    await add(blobsStore(blobs.store()), 1);
    const kept = await blobs.store().get("settings/record-secret", { type: "text" });
    await blobs.store().delete("settings/record-secret");
    // Another instance, as after the blob was lost: nothing it can find by key, so it must not make a key of its own.
    const store = blobsStore(blobs.store());
    await expect(store.add({ email: "p2@example.com", emailKey: "p2@example.com", source: "netlify" })).rejects.toThrow(
      /settings\/record-secret is missing while the store keeps records.*Restore settings\/record-secret from your backup/,
    );
    await expect(store.lookup("p1@example.com")).rejects.toThrow(/Restore settings\/record-secret/);
    await expect(blobs.store().get("settings/record-secret", { type: "text" })).resolves.toBeNull();
    // Restored, the same store finds everyone again.
    await blobs.store().set("settings/record-secret", kept!);
    await expect(store.lookup("p1@example.com")).resolves.toMatchObject({ email: "p1@example.com" });
    // The section the message names is there, and says how to back the key up and restore it from this store.
    const docs = readFileSync(path.resolve(__dirname, "../../docs/configuration.md"), "utf8");
    expect(docs).toMatch(/^## The secrets the site keeps$/m);
    expect(docs).toContain(`netlify blobs:get ${blobsStoreName} settings/record-secret --output`);
    expect(docs).toContain(`netlify blobs:set ${blobsStoreName} settings/record-secret --input`);
  });

  it("finds expired signups by their hour, without listing the records or reading the ledger", async () => {
    const store = blobsStore(blobs.store());
    const hour = 3_600_000;
    // 30 signups an hour apart, and one expired in the first hour.
    for (let n = 0; n < 30; n++) await add(store, n * hour);
    await store.fold();
    const reads = async (before: Date) => {
      await blobs.settled();
      blobs.operations.length = 0;
      const found = await store.expiredUnconfirmed(before, 100);
      await blobs.settled();
      return { found: found.length, operations: blobs.operations.map((operation) => operation.url) };
    };
    const first = await reads(at(hour));
    expect(first.found).toBe(1);
    // One list of the hours, one of the hour due, one read of its record: nothing of the other 29 signups.
    expect(first.operations.filter((url) => /records|ledger/.test(url))).toHaveLength(1);
    expect(first.operations).toHaveLength(3);
  });

  it("removes a batch of expired signups with one write per ledger blob, and finishes a pass that died half-way", async () => {
    const store = blobsStore(blobs.store(), { chunkRows: 10 });
    await Promise.all(Array.from({ length: 25 }, (_, n) => add(store, n)));
    await Promise.all(Array.from({ length: 25 }, (_, n) => store.markConfirmationSent(`p${n}@example.com`, at(n))));
    await store.fold();
    const later = at(31 * 86_400_000);

    // The first pass dies once it has marked the records as leaving: the function was killed there.
    const client = blobs.store();
    const setJSON = client.setJSON.bind(client);
    let marked = 0;
    client.setJSON = async (key, data, options) => {
      const result = await setJSON(key, data, options);
      if (key.startsWith("records/") && (data as { leaving?: unknown }).leaving && ++marked === 25) {
        throw new Error("killed");
      }
      return result;
    };
    const dying = blobsStore(client, { chunkRows: 10 });
    await expect(pruneUnconfirmed(dying, { now: later })).rejects.toThrow("killed");

    // The next pass finds them by their asked/ notes and finishes them: three ledger blobs, each written once.
    const writes = await blobs.settled().then(async () => {
      blobs.operations.length = 0;
      const { addresses } = await pruneUnconfirmed(store, { now: later });
      expect(addresses).toHaveLength(25);
      await blobs.settled();
      return blobs.operations.filter((operation) => operation.type === "set" && /ledger/.test(operation.url)).length;
    });
    expect(writes).toBe(3);
    await store.fold();
    expect(await store.all()).toEqual([]);
    expect(await store.departures()).toBe(25);
    expect((await blobs.store().list({ prefix: "records/" })).blobs).toEqual([]);
    expect((await blobs.store().list({ prefix: "asked/" })).blobs).toEqual([]);
  });

  it("recognises WAITLIST_SECRET by a salted scrypt, so a weak secret cannot be found by hashing guesses", async () => {
    const store = blobsStore(blobs.store());
    const weak = "correct horse battery staple";
    const marker = async () => (await blobs.store().get("settings/leave-signer", { type: "text" })) ?? "";
    await noteSigner(store.blobs, weak);
    const noted = await marker();
    const [prefix, salt, key] = noted.split(" ");
    expect(prefix).toBe("environment-scrypt");
    expect(Buffer.from(salt!, "base64url")).toHaveLength(16);
    expect(key).toBe(
      scryptSync(weak, Buffer.from(salt!, "base64url"), 32, { N: 2 ** 14, r: 8, p: 1 }).toString("base64url"),
    );
    // Nothing a fast guess can be checked against: no plain hash, no HMAC of a fixed label, in any encoding.
    for (const digest of [
      createHash("sha256").update(weak, "utf8").digest(),
      createHmac("sha256", weak).update("tandem waitlist: the secret links are signed with").digest(),
    ]) {
      for (const encoded of [digest.toString("hex"), digest.toString("base64"), digest.toString("base64url")]) {
        expect(noted).not.toContain(encoded);
      }
    }
    await expect(signerProblem(store.blobs, weak)).resolves.toBeUndefined();
    await expect(signerProblem(store.blobs, `${weak}!`)).resolves.toMatch(/set the same value in your shell/);
    await expect(signerProblem(store.blobs, undefined)).resolves.toMatch(/set the same value in your shell/);
    // A function opening again with the same secret leaves the mark alone; another secret replaces it.
    await noteSigner(store.blobs, weak);
    expect(await marker()).toBe(noted);
    await noteSigner(store.blobs, `${weak}!`);
    await expect(signerProblem(store.blobs, `${weak}!`)).resolves.toBeUndefined();
    await expect(signerProblem(store.blobs, weak)).resolves.toMatch(/set the same value in your shell/);
  });

  it("still recognises the plain hash an earlier version wrote, until the functions next write theirs", async () => {
    const store = blobsStore(blobs.store());
    const secret = "a-secret-of-at-least-32-characters";
    await blobs.store().set("settings/leave-signer", `environment ${sha256(secret)}`);
    await expect(signerProblem(store.blobs, secret)).resolves.toBeUndefined();
    await expect(signerProblem(store.blobs, `${secret}!`)).resolves.toMatch(/set the same value in your shell/);
  });
});

/*
 * The races the store's compare-and-swaps are for, against a Blobs server
 * that refuses a conditional write as Netlify does (test/support/blobs-server.mjs):
 * each caller a store of its own, as each function instance has.
 */
describe("BlobsStore where Netlify enforces its conditional writes", () => {
  let blobs: LocalBlobs;
  beforeEach(async () => {
    blobs = await startLocalBlobs();
  });
  afterEach(() => blobs.stop());

  const at = (ms: number) => new Date(Date.UTC(2026, 10, 1) + ms);
  const instances = (n: number) => Array.from({ length: n }, () => blobsStore(blobs.store()));
  const signUp = (store: BlobsStore, email: string, ms = 0) =>
    store.add({ email, emailKey: email, source: "netlify", at: at(ms) });
  const listedKeys = async () => (await blobs.store().list({ prefix: "records/" })).blobs.map(({ key }) => key);

  it("lets one of 20 senders at once claim an owed confirmation", async () => {
    const [first] = instances(1);
    await signUp(first!, "ada@example.com");
    const claims = await Promise.all(
      instances(20).map((store) => store.claimConfirmation("ada@example.com", { now: at(1_000), leaseMs: 60_000 })),
    );
    expect(claims.filter((claim) => claim !== undefined)).toEqual([1]);
  });

  it("counts 20 e-mails to one mailbox at once as 1 to 20, each once", async () => {
    const counts = await Promise.all(
      instances(20).map((store) => store.countMailboxMail("5a".repeat(16), "2026-11-01")),
    );
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
  });

  it(`lands every one of ${maxAttempts} changes of one record made at once, none giving up`, async () => {
    // Each refused attempt means another change landed in between: with maxAttempts at once, the last lands at its last.
    const [first] = instances(1);
    await signUp(first!, "ada@example.com");
    const changes = Array.from({ length: maxAttempts }, () => blobsStore(blobs.store(), { clock: () => at(0) }));
    // Each a repeat signup of hers: a change of her record by compare-and-swap.
    await Promise.all(changes.map((one) => signUp(one, "ada@example.com")));
    await first!.fold();
    expect((await first!.all())[0]?.repeatSignups).toBe(maxAttempts);
  });

  it("answers 20 leaves of one address at once, keeps nothing of it and counts one departure", async () => {
    const [first] = instances(1);
    await signUp(first!, "ada@example.com");
    await signUp(first!, "grace@example.com", 1);
    await first!.fold();
    const left = await Promise.all(
      instances(20).map((store) => store.remove("ada@example.com", "one-click", at(10_000), at(0).toISOString())),
    );
    expect(left.every((one) => one === undefined || one.email === "ada@example.com")).toBe(true);
    expect(left.filter(Boolean).length).toBeGreaterThan(0);
    await first!.fold();
    expect((await first!.all()).map((row) => row.email)).toEqual(["grace@example.com"]);
    expect(await listedKeys()).toEqual([`records/${await first!.key("grace@example.com")}`]);
    expect(await first!.departureCounts()).toEqual({ left: 1, pruned: 0, afterWave: 0 });
  });

  it("answers 20 leaves at once of 20 addresses filed in one ledger blob, and keeps none of them", async () => {
    const [first] = instances(1);
    const emails = Array.from({ length: 20 }, (_, n) => `leaver${n}@example.com`);
    for (const [n, email] of emails.entries()) await signUp(first!, email, n);
    await signUp(first!, "stays@example.com", 100);
    await first!.fold();
    expect((await blobs.store().list({ prefix: "ledger/" })).blobs.map(({ key }) => key)).toEqual(["ledger/000001"]);
    await Promise.all(instances(20).map((store, n) => store.remove(emails[n]!, "one-click", at(10_000 + n))));
    await first!.fold();
    expect((await first!.all()).map((row) => row.email)).toEqual(["stays@example.com"]);
    expect(await first!.departures()).toBe(20);
  });

  it("lets a leave win over a confirm of the same address at the same moment: nothing of it comes back", async () => {
    const [first] = instances(1);
    const emails = Array.from({ length: 10 }, (_, n) => `both${n}@example.com`);
    for (const email of emails) await signUp(first!, email);
    await first!.fold();
    const [confirming, leaving] = [instances(10), instances(10)];
    await Promise.all(
      emails.flatMap((email, n) => [
        confirming[n]!.confirm(email, { createdAt: at(0).toISOString(), at: at(5_000), privacyPolicy: null }),
        leaving[n]!.remove(email, "one-click", at(5_000), at(0).toISOString()),
      ]),
    );
    await first!.fold();
    expect(await first!.all()).toEqual([]);
    expect(await listedKeys()).toEqual([]);
    expect(await first!.departures()).toBe(10);
  });

  /** A store whose requests go through `fetch`: a service that answers otherwise than Netlify's. */
  const storeFetching = (fetch: typeof globalThis.fetch) =>
    blobsStore(
      getStore({
        name: blobsStoreName,
        siteID: blobs.siteID,
        token: blobs.token,
        edgeURL: blobs.url,
        uncachedEdgeURL: blobs.url,
        consistency: "strong",
        fetch,
      }),
    );

  it("takes the ETag from a listing where a read gives none, as netlify dev's sandbox does, and writes on it", async () => {
    // A service that answers reads without an ETag, as @netlify/blobs' local server (netlify dev's sandbox) does: the
    // client would drop an empty onlyIfMatch and write whatever had happened since. Its listings give one.
    const noETag: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      const headers = new Headers(answer.headers);
      headers.delete("etag");
      return new Response([204, 304].includes(answer.status) ? null : answer.body, { status: answer.status, headers });
    };
    const [first] = instances(1);
    await signUp(first!, "ada@example.com");
    const blind = storeFetching(noETag);
    await expect(blind.claimConfirmation("ada@example.com", { now: at(1_000), leaseMs: 60_000 })).resolves.toBe(1);
    // A conditional write, on the listed ETag: the claim is one, and the other instance finds it held.
    await expect(first!.claimConfirmation("ada@example.com", { now: at(1_000), leaseMs: 60_000 })).resolves.toBe(
      undefined,
    );
    // With an ETag from nowhere at all, nothing is written over.
    const nothing: typeof fetch = async (input, init) => {
      const answer = await noETag(input, init);
      if (!new URL(String(input instanceof Request ? input.url : input)).searchParams.has("prefix")) return answer;
      return Response.json({ blobs: [], directories: [] });
    };
    await expect(
      storeFetching(nothing).claimConfirmation("ada@example.com", { now: at(200_000), leaseMs: 60_000 }),
    ).rejects.toThrow(/without an ETag/);
  });

  it("takes a conditional write that failed for a failure, not for one made: the visitor is told only what was kept", async () => {
    // Netlify unavailable for conditional writes: @netlify/blobs 11 retries a 503, then reports any answer but a 412
    // as `modified: true`.
    const unavailable: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (init?.method?.toUpperCase() === "PUT" && (headers.has("if-match") || headers.has("if-none-match"))) {
        return new Response("Service Unavailable", { status: 503 });
      }
      return fetch(input, init);
    };
    const [first] = instances(1);
    await signUp(first!, "ada@example.com");
    const failing = storeFetching(unavailable);
    await expect(
      failing.confirm("ada@example.com", { createdAt: at(0).toISOString(), at: at(1_000), privacyPolicy: null }),
    ).rejects.toThrow(/neither made nor refused/);
    await expect(first!.lookup("ada@example.com")).resolves.toMatchObject({ confirmedAt: null });
    await expect(signUp(failing, "grace@example.com")).rejects.toThrow(/neither made nor refused/);
    await expect(first!.lookup("grace@example.com")).resolves.toBeUndefined();
    await expect(failing.countMailboxMail("6b".repeat(16), "2026-11-01")).rejects.toThrow(/neither made nor refused/);
    await expect(first!.countMailboxMail("6b".repeat(16), "2026-11-01")).resolves.toBe(1);
  });
});
