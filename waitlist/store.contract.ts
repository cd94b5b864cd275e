import { noAttribution } from "./attribution";
import type { FullStore, NewSignup } from "./store";

/*
 * What every store must do, whatever it keeps its data in: one suite, run by
 * sqlite-store.test.ts and blobs-store.test.ts, so a behaviour cannot exist
 * on one deployment only.
 */

export interface StoreUnderTest {
  /** A store over fresh, empty storage. */
  open(): Promise<FullStore>;
  /** Another store over the same storage: a restart, or another function instance. */
  reopen(): Promise<FullStore>;
  /** Brings the store's own bookkeeping up to date (the Blobs store's fold); nothing for SQLite. */
  settle(store: FullStore): Promise<void>;
  cleanup(): Promise<void>;
}

const now = new Date("2025-06-01T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const signup = (email: string, at = now, extra: Partial<NewSignup> = {}): NewSignup => ({
  email,
  emailKey: email.toLowerCase(),
  source: "start",
  at,
  ...extra,
});

export function describeStoreContract(name: string, makeHarness: () => StoreUnderTest): void {
  describe(`${name}: the store contract`, () => {
    let harness: StoreUnderTest;
    let store: FullStore;
    beforeEach(async () => {
      harness = makeHarness();
      store = await harness.open();
    });
    afterEach(async () => {
      await store.close();
      await harness.cleanup();
    });

    it("adds an address once, by its key: the first signup and its attribution are the ones kept", async () => {
      const attribution = { ...noAttribution, utmSource: "tiktok", ref: "maya", landingPath: "/" };
      await expect(store.add(signup("Ada@Example.com", now, { attribution }))).resolves.toEqual({
        added: true,
        createdAt: "2025-06-01T12:00:00.000Z",
      });
      await expect(
        store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "develop", at: later(1000) }),
      ).resolves.toMatchObject({ added: false });
      await harness.settle(store);
      expect(await store.all()).toEqual([
        {
          email: "Ada@Example.com",
          emailKey: "ada@example.com",
          createdAt: "2025-06-01T12:00:00.000Z",
          source: "start",
          confirmationSentAt: null,
          confirmationFailedAt: null,
          confirmationError: null,
          ...attribution,
        },
      ]);
      expect(await store.count()).toBe(1);
    });

    it("stores an address once when two instances add it at the same moment", async () => {
      // Two stores over one storage, as two processes or two function instances have: the conditional write decides.
      const other = await harness.reopen();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, n) =>
          (n % 2 ? other : store).add(signup(n % 3 ? "race@example.com" : "RACE@example.com", later(n))),
        ),
      );
      expect(results.filter((result) => result.added)).toHaveLength(1);
      expect(await store.pendingConfirmations()).toHaveLength(1);
      await other.close();
    });

    it("keeps every signup for the next store over the same storage", async () => {
      await store.add(signup("a@example.com"));
      await store.add(signup("b@example.com", later(1)));
      const again = await harness.reopen();
      await harness.settle(again);
      expect((await again.all()).map((row) => row.email)).toEqual(["a@example.com", "b@example.com"]);
      await expect(again.add(signup("a@example.com", later(2)))).resolves.toMatchObject({ added: false });
      await again.close();
    });

    it("owes every new address a confirmation, oldest first, until it is sent", async () => {
      await store.add(signup("b@example.com", later(5)));
      await store.add(signup("a@example.com", now));
      const owed = [
        { email: "a@example.com", emailKey: "a@example.com", createdAt: "2025-06-01T12:00:00.000Z" },
        { email: "b@example.com", emailKey: "b@example.com", createdAt: "2025-06-01T12:00:00.005Z" },
      ];
      expect(await store.pendingConfirmations()).toEqual(owed);
      expect(await store.dueConfirmations(later(10), 100)).toEqual(owed);
      expect(await store.dueConfirmations(later(10), 1)).toEqual([owed[0]]);
      expect(await store.confirmationCounts()).toEqual({ sent: 0, pending: 2, failed: 0 });
    });

    it("lets one sender at a time claim a confirmation, counts the attempts, and none after it was sent", async () => {
      await store.add(signup("a@example.com"));
      await expect(store.claimConfirmation("a@example.com", { now, leaseMs: 60_000 })).resolves.toBe(1);
      await expect(store.claimConfirmation("a@example.com", { now, leaseMs: 60_000 })).resolves.toBeUndefined();
      // A sender that died keeps its claim only until the lease runs out.
      await expect(store.claimConfirmation("a@example.com", { now: later(61_000), leaseMs: 60_000 })).resolves.toBe(2);
      await store.releaseConfirmation("a@example.com", "connection refused", later(61_000));
      await expect(store.claimConfirmation("a@example.com", { now: later(61_000), leaseMs: 60_000 })).resolves.toBe(3);
      await store.markConfirmationSent("a@example.com", later(62_000));
      await expect(
        store.claimConfirmation("a@example.com", { now: later(600_000), leaseMs: 60_000 }),
      ).resolves.toBeUndefined();
      expect(await store.pendingConfirmations()).toEqual([]);
      await harness.settle(store);
      expect((await store.all())[0]).toMatchObject({
        confirmationSentAt: "2025-06-01T12:01:02.000Z",
        confirmationError: null,
      });
      expect(await store.confirmationCounts()).toEqual({ sent: 1, pending: 0, failed: 0 });
    });

    it("offers an owed confirmation again once its lease has run out or its retry is due, never before", async () => {
      await store.add(signup("a@example.com", now));
      await store.add(signup("b@example.com", later(1)));
      const due = async (at: Date) => (await store.dueConfirmations(at, 100)).map((owed) => owed.emailKey);
      expect(await due(later(2))).toEqual(["a@example.com", "b@example.com"]);
      // a's sender dies holding it: not due until the lease has passed.
      await expect(store.claimConfirmation("a@example.com", { now, leaseMs: 2_000 })).resolves.toBe(1);
      expect(await due(later(1_000))).toEqual(["b@example.com"]);
      expect(await due(later(2_001))).toEqual(["a@example.com", "b@example.com"]);
      // b fails for now: due at its retry time.
      await expect(store.claimConfirmation("b@example.com", { now, leaseMs: 2_000 })).resolves.toBe(1);
      await store.releaseConfirmation("b@example.com", "421 try later", later(30_000));
      expect(await due(later(29_999))).toEqual(["a@example.com"]);
      expect(await due(later(30_000))).toEqual(["a@example.com", "b@example.com"]);
      expect(await store.confirmationCounts()).toEqual({ sent: 0, pending: 2, failed: 0 });
      await harness.settle(store);
      expect(await store.lastConfirmationError()).toBe("421 try later");
    });

    it("keeps an address refused for good out of every retry, with its error", async () => {
      await store.add(signup("x@example.com"));
      await expect(store.claimConfirmation("x@example.com", { now, leaseMs: 1_000 })).resolves.toBe(1);
      await store.failConfirmation("x@example.com", "550 5.1.1 no such user", now);
      await expect(
        store.claimConfirmation("x@example.com", { now: later(3_600_000), leaseMs: 1_000 }),
      ).resolves.toBeUndefined();
      expect(await store.dueConfirmations(later(3_600_000), 100)).toEqual([]);
      expect(await store.pendingConfirmations()).toEqual([]);
      await harness.settle(store);
      expect(await store.confirmationCounts()).toEqual({ sent: 0, pending: 0, failed: 1 });
      expect(await store.failedConfirmations()).toEqual([
        { email: "x@example.com", failedAt: "2025-06-01T12:00:00.000Z", error: "550 5.1.1 no such user" },
      ]);
      expect(await store.lastConfirmationError()).toBe("550 5.1.1 no such user");
    });

    it("removes every record of an address, owed confirmation included, and counts the departure", async () => {
      await store.add(signup("Leaving.Person@example.com"));
      await store.add(signup("stays@example.com", later(1)));
      await harness.settle(store);
      await expect(store.remove("leaving.person@example.com", "link", later(10))).resolves.toEqual({
        email: "Leaving.Person@example.com",
        createdAt: "2025-06-01T12:00:00.000Z",
      });
      await expect(store.remove("leaving.person@example.com", "link", later(20))).resolves.toBeUndefined();
      expect((await store.all()).map((row) => row.email)).toEqual(["stays@example.com"]);
      expect((await store.pendingConfirmations()).map((owed) => owed.email)).toEqual(["stays@example.com"]);
      await expect(
        store.claimConfirmation("leaving.person@example.com", { now: later(30), leaseMs: 1_000 }),
      ).resolves.toBeUndefined();
      expect(await store.departures()).toBe(1);
      await harness.settle(store);
      expect((await store.all()).map((row) => row.email)).toEqual(["stays@example.com"]);
      expect(await store.count()).toBe(1);
    });

    it("takes an address that left and comes back as a new signup, owed a new confirmation", async () => {
      await store.add(signup("back@example.com"));
      await store.markConfirmationSent("back@example.com", later(1));
      await harness.settle(store);
      await store.remove("back@example.com", "one-click", later(2));
      await expect(store.add(signup("back@example.com", later(3)))).resolves.toMatchObject({ added: true });
      await harness.settle(store);
      expect(await store.all()).toEqual([
        expect.objectContaining({
          email: "back@example.com",
          createdAt: later(3).toISOString(),
          confirmationSentAt: null,
        }),
      ]);
      expect(await store.pendingConfirmations()).toHaveLength(1);
    });

    it("stores a signup confirmed elsewhere (an import) as sent, owing nothing", async () => {
      await store.add(signup("imported@example.com", now, { confirmationSentAt: now }));
      expect(await store.pendingConfirmations()).toEqual([]);
      await harness.settle(store);
      expect(await store.confirmationCounts()).toEqual({ sent: 1, pending: 0, failed: 0 });
      expect((await store.all())[0]!.confirmationSentAt).toBe(now.toISOString());
    });

    it("gives what stats needs of every signup", async () => {
      await store.add(signup("a@example.com", now, { attribution: { ...noAttribution, utmSource: "tiktok" } }));
      await store.add(signup("b@example.com", later(1), { attribution: { ...noAttribution, ref: "maya" } }));
      await harness.settle(store);
      expect(await store.statsRows()).toEqual(
        expect.arrayContaining([
          { createdAt: now.toISOString(), utmSource: "tiktok", utmCampaign: null, ref: null },
          { createdAt: later(1).toISOString(), utmSource: null, utmCampaign: null, ref: "maya" },
        ]),
      );
    });

    it("makes a secret once and keeps it for every later store over the same storage", async () => {
      let made = 0;
      const make = () => `secret-${++made}`.padEnd(32, "x");
      const secret = await store.secret("leave", make);
      expect(secret).toBe("secret-1".padEnd(32, "x"));
      await expect(store.secret("leave", make)).resolves.toBe(secret);
      const again = await harness.reopen();
      await expect(again.secret("leave", make)).resolves.toBe(secret);
      await again.close();
    });
  });
}
