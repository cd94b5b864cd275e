import { BlobsStore } from "./blobs-store";
import { describeStoreContract } from "./store.contract";
import { startLocalBlobs, type LocalBlobs } from "../test/support/blobs";
import type { FullStore } from "./store";

describeStoreContract("Netlify Blobs", () => {
  let blobs: LocalBlobs | undefined;
  const open = async () => {
    blobs ??= await startLocalBlobs();
    return new BlobsStore(blobs.store());
  };
  return {
    open,
    reopen: open,
    settle: async (store: FullStore) => void (await (store as BlobsStore).fold()),
    cleanup: async () => blobs?.stop(),
  };
});

describe("BlobsStore", () => {
  let blobs: LocalBlobs;
  beforeEach(async () => {
    blobs = await startLocalBlobs();
  });
  afterEach(() => blobs.stop());

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

  it("files the list in blobs of so many rows, so reading the list costs a get per blob and one list", async () => {
    // Ten rows a blob here, a thousand on Netlify: the same arithmetic, a hundred times fewer signups to make.
    const store = new BlobsStore(blobs.store(), { chunkRows: 10 });
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
    const plain = new BlobsStore(blobs.store());
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
    await new BlobsStore(client).fold();
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
    const store = new BlobsStore(blobs.store());
    await add(store, 1);
    await store.fold();
    // What remove() writes before it erases anything, and nothing after: the function was killed there.
    const client = blobs.store();
    const setJSON = client.setJSON.bind(client);
    client.setJSON = async (key, data, options) => {
      const result = await setJSON(key, data, options);
      if (key.startsWith("signups/") && (data as { leaving?: unknown }).leaving) throw new Error("killed");
      return result;
    };
    await expect(new BlobsStore(client).remove("p1@example.com", "one-click", at(5_000))).rejects.toThrow("killed");
    expect(await store.pendingConfirmations()).toEqual([]);

    await store.add({ email: "p9@example.com", emailKey: "p9@example.com", source: "netlify", at: at(9) });
    await store.fold();
    expect((await store.all()).map((row) => row.email)).toEqual(["p9@example.com"]);
    expect(await store.departures()).toBe(1);
    expect((await blobs.store().list({ prefix: "signups/" })).blobs).toHaveLength(1);
  });
});
