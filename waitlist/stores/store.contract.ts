import { noAttribution } from "../attribution";
import { pruneUnconfirmed } from "../prune";
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
  /** Everything the storage holds, to compare: every table's rows, or every blob and its contents. */
  snapshot(): Promise<unknown>;
  cleanup(): Promise<void>;
}

const now = new Date("2025-06-01T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const day = 86_400_000;
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
      await expect(
        store.add(
          signup("Ada@Example.com", now, {
            attribution,
            privacyPolicy: "2026-11-23",
            consent: "statement 2026-11-25; Privacy Policy 2026-11-23 #528d5f65963f",
          }),
        ),
      ).resolves.toEqual({
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
          confirmationCapped: false,
          ...attribution,
          confirmedAt: null,
          privacyPolicyAtSignup: "2026-11-23",
          privacyPolicyAtConfirm: null,
          optInSince: "2025-06-01T12:00:00.000Z",
          consentAtSignup: "statement 2026-11-25; Privacy Policy 2026-11-23 #528d5f65963f",
          consentAtConfirm: null,
          inviteCode: null,
          invitedBy: null,
          mailbox: null,
          // The repeat is counted: what a founder answers an access request with.
          repeatSignups: 1,
          confirmationAttempts: 0,
          announcements: [],
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
      ].map((entry) => ({ ...entry, optInSince: entry.createdAt }));
      expect(await store.pendingConfirmations()).toEqual(owed);
      expect(await store.dueConfirmations(later(10), 100)).toEqual(owed);
      // A batch smaller than what is owed: as many, each owed. The order is the store's (SQL's, oldest first;
      // Netlify Blobs reads no more records than the batch, along a walk of its notes, and orders those).
      const batch = await store.dueConfirmations(later(10), 1);
      expect(batch).toHaveLength(1);
      expect(owed).toContainEqual(batch[0]);
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
        confirmationCapped: false,
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

    it("keeps a digest of a confirmed member who left until the retention forgets it, and none of anyone else", async () => {
      await store.add(signup("left@example.com"));
      await store.add(signup("quiet@example.com", later(1)));
      await store.add(signup("never.confirmed@example.com", later(2)));
      await store.confirm("left@example.com", { createdAt: now.toISOString(), at: later(5), privacyPolicy: null });
      await harness.settle(store);
      await store.remove("left@example.com", "one-click", later(10), "d1".repeat(16));
      await store.remove("quiet@example.com", "operator", later(day + 10));
      // Never confirmed, so never handed to a launch tool: nothing of it is kept to match there.
      await store.remove("never.confirmed@example.com", "link", later(11), "d2".repeat(16));
      await harness.settle(store);
      expect(await store.leaverDigests(now)).toEqual([{ digest: "d1".repeat(16), leftAt: expect.any(String) }]);
      expect((await store.leaverDigests(now))[0]!.leftAt.slice(0, 10)).toBe("2025-06-01");
      // Only those who left since the day asked for.
      expect(await store.leaverDigests(later(2 * day))).toEqual([]);
      await expect(store.departureCounts()).resolves.toEqual({ left: 3, pruned: 0 });
      // The day's pass forgets the digests of the days gone by; the departures stay, counted, naming nobody.
      await store.forgetLeaverDigestsBefore(later(day));
      expect(await store.leaverDigests(now)).toEqual([]);
      await expect(store.departureCounts()).resolves.toEqual({ left: 3, pruned: 0 });
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

    it("records a confirmation once, for the signup its link was for, with the Privacy Policy then in force", async () => {
      await store.add(signup("ada@example.com", now, { privacyPolicy: "2025-06-01" }));
      await expect(store.lookup("ada@example.com")).resolves.toEqual({
        email: "ada@example.com",
        createdAt: now.toISOString(),
        confirmedAt: null,
        inviteCode: null,
        confirmedInvites: 0,
      });
      const confirmation = { createdAt: now.toISOString(), at: later(60_000), privacyPolicy: "2026-11-23" };
      await expect(store.confirm("ada@example.com", { ...confirmation, inviteCode: "AdaCode12345" })).resolves.toEqual({
        confirmedAt: later(60_000).toISOString(),
        first: true,
        inviteCode: "AdaCode12345",
      });
      // A second press keeps the first time, and the first code.
      await expect(
        store.confirm("ada@example.com", { ...confirmation, at: later(120_000), privacyPolicy: "2027-01-01" }),
      ).resolves.toEqual({ confirmedAt: later(60_000).toISOString(), first: false, inviteCode: "AdaCode12345" });
      await expect(store.lookup("ada@example.com")).resolves.toMatchObject({ inviteCode: "AdaCode12345" });
      // A link for another signup of the address, and an address not listed, confirm nothing.
      await expect(
        store.confirm("ada@example.com", { ...confirmation, createdAt: later(1).toISOString() }),
      ).resolves.toBeUndefined();
      await expect(store.confirm("nobody@example.com", confirmation)).resolves.toBeUndefined();
      await expect(store.lookup("nobody@example.com")).resolves.toBeUndefined();
      await harness.settle(store);
      expect((await store.all())[0]).toMatchObject({
        confirmedAt: later(60_000).toISOString(),
        privacyPolicyAtSignup: "2025-06-01",
        privacyPolicyAtConfirm: "2026-11-23",
      });
      expect((await store.statsRows())[0]).toMatchObject({ confirmedAt: later(60_000).toISOString() });
    });

    describe("invites (invites.ts): credit that cannot be gamed", () => {
      /** Signs up `email` (its mailbox digest `mailbox`), by `invitedBy`'s link, and confirms it unless told not to. */
      const join = async (email: string, mailbox: string, invitedBy?: string, confirm = true, at = now) => {
        await store.add(signup(email, at, { mailbox, invitedBy }));
        if (!confirm) return undefined;
        return (await store.confirm(email.toLowerCase(), {
          createdAt: at.toISOString(),
          at: later(1),
          privacyPolicy: null,
        }))!.inviteCode;
      };
      const invites = async (email: string) => (await store.lookup(email))!.confirmedInvites;

      it("counts those who came by a confirmed signup's link and confirmed, one per mailbox, never its own", async () => {
        const code = (await join("anna@example.com", "m-anna"))!;
        expect(code).toMatch(/^[A-Za-z0-9_-]{12}$/);
        await join("bob@example.com", "m-bob", code);
        // Not yet confirmed: no credit.
        await join("carl@example.com", "m-carl", code, false);
        // Another spelling of bob's mailbox, and one of anna's own: no more credit.
        await join("bob+2@example.com", "m-bob", code);
        await join("anna+x@example.com", "m-anna", code);
        await harness.settle(store);
        expect(await invites("anna@example.com")).toBe(1);
        await store.confirm("carl@example.com", { createdAt: now.toISOString(), at: later(2), privacyPolicy: null });
        await harness.settle(store);
        expect(await invites("anna@example.com")).toBe(2);
        // Who invited whom is kept with the signup, for the founders.
        const rows = await store.all();
        expect(rows.find((row) => row.email === "carl@example.com")).toMatchObject({
          invitedBy: code,
          mailbox: "m-carl",
        });
        expect(rows.find((row) => row.email === "anna@example.com")).toMatchObject({
          inviteCode: code,
          invitedBy: null,
        });
      });

      it("keeps no unknown code, nor one not confirmed yet, as who invited a signup", async () => {
        await join("anna@example.com", "m-anna", undefined, false);
        await join("bob@example.com", "m-bob", "NoSuchCode12");
        await harness.settle(store);
        expect((await store.all()).map((row) => row.invitedBy)).toEqual([null, null]);
      });

      it("no longer counts an invitee who left or was pruned", async () => {
        const code = (await join("anna@example.com", "m-anna"))!;
        await join("bob@example.com", "m-bob", code);
        await join("carl@example.com", "m-carl", code);
        await harness.settle(store);
        expect(await invites("anna@example.com")).toBe(2);
        await store.remove("bob@example.com", "link", later(5));
        await harness.settle(store);
        expect(await invites("anna@example.com")).toBe(1);
        // Another of bob's spellings, confirmed, counts him again: once.
        await join("bob+new@example.com", "m-bob", code, true, later(6));
        await harness.settle(store);
        expect(await invites("anna@example.com")).toBe(2);
      });
    });

    it("does a thing once (the founders' digest of a day), however many instances race to", async () => {
      const other = await harness.reopen();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, n) => (n % 2 ? other : store).once("digest-2026-11-25")),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.once("digest-2026-11-26")).resolves.toBe(true);
      await expect(other.once("digest-2026-11-26")).resolves.toBe(false);
      await other.close();
    });

    it("counts the departures of a span of time on their own (the founders' digest of a day)", async () => {
      for (const [n, email] of ["a@example.com", "b@example.com", "c@example.com"].entries()) {
        await store.add(signup(email, later(n)));
      }
      await harness.settle(store);
      await store.remove("a@example.com", "link", later(day - 1));
      await store.remove("b@example.com", "operator", later(day));
      await store.removeUnconfirmed(await store.expiredUnconfirmed(later(day + 10), 100), later(day + 10));
      await harness.settle(store);
      await expect(store.departureCounts()).resolves.toEqual({ left: 2, pruned: 1 });
      await expect(store.departureCounts({ from: later(day), to: later(2 * day) })).resolves.toEqual({
        left: 1,
        pruned: 1,
      });
      await expect(store.departureCounts({ from: now, to: later(day) })).resolves.toEqual({ left: 1, pruned: 0 });
    });

    it("erases the confirmation with the address when it leaves, and counts a pruned one as a departure", async () => {
      await store.add(signup("confirmed@example.com"));
      await store.confirm("confirmed@example.com", { createdAt: now.toISOString(), at: later(1), privacyPolicy: null });
      await store.add(signup("never@example.com", later(2)));
      await harness.settle(store);
      await store.remove("confirmed@example.com", "link", later(3));
      await store.remove("never@example.com", "pruned", later(4));
      await expect(store.lookup("confirmed@example.com")).resolves.toBeUndefined();
      // Back again: a new signup, unconfirmed until its own link is pressed.
      await store.add(signup("confirmed@example.com", later(5)));
      await harness.settle(store);
      expect(await store.all()).toEqual([
        expect.objectContaining({ email: "confirmed@example.com", confirmedAt: null, privacyPolicyAtConfirm: null }),
      ]);
      expect(await store.departures()).toBe(2);
      // A pruned signup did not leave: stats tells the two apart.
      expect(await store.departureCounts()).toEqual({ left: 1, pruned: 1 });
    });

    it("asks a signup from before the confirm step once: owed a confirmation again, since then", async () => {
      await store.add(signup("earlier@example.com", now, { earlier: true, confirmationSentAt: now }));
      await store.add(signup("new@example.com", later(1)));
      await harness.settle(store);
      expect((await store.all()).map((row) => [row.email, row.optInSince])).toEqual([
        ["earlier@example.com", null],
        ["new@example.com", later(1).toISOString()],
      ]);
      await expect(store.askToConfirm("earlier@example.com", later(86_400_000))).resolves.toEqual({
        email: "earlier@example.com",
        emailKey: "earlier@example.com",
        createdAt: now.toISOString(),
        optInSince: later(86_400_000).toISOString(),
      });
      await expect(store.askToConfirm("earlier@example.com", later(86_400_001))).resolves.toBeUndefined();
      await expect(store.askToConfirm("new@example.com", later(86_400_000))).resolves.toBeUndefined();
      await expect(store.askToConfirm("nobody@example.com", later(86_400_000))).resolves.toBeUndefined();
      // One from before still owed its first mail: the mail carries the confirm link, so it asks from then on.
      await store.add(signup("owed@example.com", later(2), { earlier: true }));
      await store.markConfirmationSent("owed@example.com", later(3));
      await harness.settle(store);
      expect((await store.all()).find((row) => row.email === "owed@example.com")?.optInSince).toBe(
        later(3).toISOString(),
      );
      expect(await store.pendingConfirmations()).toEqual([
        {
          email: "earlier@example.com",
          emailKey: "earlier@example.com",
          createdAt: now.toISOString(),
          optInSince: later(86_400_000).toISOString(),
        },
        {
          email: "new@example.com",
          emailKey: "new@example.com",
          createdAt: later(1).toISOString(),
          optInSince: later(1).toISOString(),
        },
      ]);
      await harness.settle(store);
      expect((await store.all())[0]).toMatchObject({
        confirmationSentAt: null,
        optInSince: later(86_400_000).toISOString(),
      });
    });

    it("asks a repeat signup again once its last e-mail is that old, unless it confirmed or its mailbox is refused", async () => {
      const again = { resendAfterMs: day };
      for (const email of ["lost@example.com", "confirmed@example.com", "refused@example.com", "owed@example.com"]) {
        await store.add(signup(email));
      }
      await store.markConfirmationSent("lost@example.com", later(1_000));
      await store.markConfirmationSent("confirmed@example.com", later(1_000));
      await store.confirm("confirmed@example.com", {
        createdAt: now.toISOString(),
        at: later(2_000),
        privacyPolicy: null,
      });
      await store.failConfirmation("refused@example.com", "550 no such mailbox", later(1_000));
      // Within a day of the last e-mail: nothing.
      await expect(store.askToConfirm("lost@example.com", later(day), again)).resolves.toBeUndefined();
      // A day after it: asked again, owed a new e-mail; the old link (same signup) still confirms.
      await expect(store.askToConfirm("lost@example.com", later(day + 1_000), again)).resolves.toEqual({
        email: "lost@example.com",
        emailKey: "lost@example.com",
        createdAt: now.toISOString(),
        optInSince: later(day + 1_000).toISOString(),
      });
      await expect(store.askToConfirm("lost@example.com", later(day + 2_000), again)).resolves.toBeUndefined();
      for (const email of ["confirmed@example.com", "refused@example.com", "owed@example.com", "nobody@example.com"]) {
        await expect(store.askToConfirm(email, later(30 * day), again)).resolves.toBeUndefined();
      }
      // Without resendAfterMs (the founders' ask-to-confirm), an address asked before is never asked again.
      await store.markConfirmationSent("lost@example.com", later(day + 3_000));
      await expect(store.askToConfirm("lost@example.com", later(30 * day))).resolves.toBeUndefined();
      expect((await store.pendingConfirmations()).map((owed) => owed.email)).toEqual(["owed@example.com"]);
      await harness.settle(store);
      expect((await store.all()).find((row) => row.email === "lost@example.com")).toMatchObject({
        createdAt: now.toISOString(),
        // Asked first at the signup: the retention counts from then, whatever was sent since.
        optInSince: now.toISOString(),
        confirmationSentAt: later(day + 3_000).toISOString(),
      });
    });

    it("asks a repeat signup again a day after its mailbox had its day's e-mails, unlike one the mail server refused", async () => {
      const again = { resendAfterMs: day };
      await store.add(signup("capped@example.com"));
      await store.add(signup("refused@example.com"));
      const cap = "not sent: 3 confirmation e-mails went to this mailbox today, however spelled";
      await store.failConfirmation("capped@example.com", cap, later(1_000), { capped: true });
      await store.failConfirmation("refused@example.com", "550 no such mailbox", later(1_000));
      // Neither is retried by the sweep, and both are listed for the founders with their reason.
      expect(await store.dueConfirmations(later(30 * day), 10)).toEqual([]);
      expect((await store.failedConfirmations()).map(({ email, error }) => [email, error]).sort()).toEqual([
        ["capped@example.com", cap],
        ["refused@example.com", "550 no such mailbox"],
      ]);
      // The same day: not yet. A day later: the capped one is asked again, owed a new e-mail; the refused one never.
      await expect(store.askToConfirm("capped@example.com", later(day), again)).resolves.toBeUndefined();
      await expect(store.askToConfirm("capped@example.com", later(day + 1_000), again)).resolves.toEqual({
        email: "capped@example.com",
        emailKey: "capped@example.com",
        createdAt: now.toISOString(),
        optInSince: later(day + 1_000).toISOString(),
      });
      await expect(store.askToConfirm("refused@example.com", later(30 * day), again)).resolves.toBeUndefined();
      expect((await store.pendingConfirmations()).map((owed) => owed.email)).toEqual(["capped@example.com"]);
      expect((await store.failedConfirmations()).map(({ email }) => email)).toEqual(["refused@example.com"]);
      // Asked again, it is capped no more: refused by the mail server this time, it stays refused.
      await store.failConfirmation("capped@example.com", "550 no such mailbox", later(day + 2_000));
      await expect(store.askToConfirm("capped@example.com", later(30 * day), again)).resolves.toBeUndefined();
    });

    it("finds the signups asked to confirm before a time that never did, those asked first first, up to a limit", async () => {
      await store.add(signup("confirmed@example.com", now));
      await store.confirm("confirmed@example.com", { createdAt: now.toISOString(), at: later(1), privacyPolicy: null });
      await store.add(signup("second@example.com", later(2 * 3_600_000)));
      await store.add(signup("first@example.com", later(1_000)));
      await store.add(signup("left@example.com", later(2_000)));
      await store.remove("left@example.com", "link", later(3_000));
      await store.add(signup("recent@example.com", later(20 * day)));
      // From before the confirm step: never asked, never expires; until asked, then from the asking on.
      await store.add(signup("earlier@example.com", now, { earlier: true, confirmationSentAt: now }));
      await store.add(signup("asked@example.com", now, { earlier: true, confirmationSentAt: now }));
      await store.askToConfirm("asked@example.com", later(5 * 3_600_000));
      // A repeat signup changes nothing: the first one's asking counts.
      await store.add(signup("FIRST@example.com", later(9 * day)));
      await harness.settle(store);
      const emails = async (before: Date, limit = 100) =>
        (await store.expiredUnconfirmed(before, limit)).map((found) => found.email);

      await expect(emails(later(10 * day))).resolves.toEqual([
        "first@example.com",
        "second@example.com",
        "asked@example.com",
      ]);
      await expect(emails(later(10 * day), 2)).resolves.toEqual(["first@example.com", "second@example.com"]);
      await expect(emails(later(-1))).resolves.toEqual([]);
      await expect(store.expiredUnconfirmed(later(10 * day), 1)).resolves.toEqual([
        {
          email: "first@example.com",
          emailKey: "first@example.com",
          createdAt: later(1_000).toISOString(),
          optInSince: later(1_000).toISOString(),
        },
      ]);
      // Once confirmed, or removed, a signup is not found again.
      await store.confirm("first@example.com", {
        createdAt: later(1_000).toISOString(),
        at: later(10 * day),
        privacyPolicy: null,
      });
      await store.remove("second@example.com", "pruned", later(31 * day));
      await expect(emails(later(40 * day))).resolves.toEqual(["asked@example.com", "recent@example.com"]);
    });

    it("removes the expired signups found, as pruned, unless they confirmed or left since; asking again gains no time", async () => {
      const emails = ["a@example.com", "b@example.com", "c@example.com", "d@example.com"];
      for (const [index, email] of emails.entries()) {
        await store.add(signup(email, later(index)));
        await store.markConfirmationSent(email, later(10));
      }
      await harness.settle(store);
      const found = await store.expiredUnconfirmed(later(31 * day), 10);
      expect(found.map((one) => one.email)).toEqual([
        "a@example.com",
        "b@example.com",
        "c@example.com",
        "d@example.com",
      ]);
      // Between finding and removing: b confirms, c signs up again a day later and is asked again, d leaves.
      await store.confirm("b@example.com", {
        createdAt: later(1).toISOString(),
        at: later(2 * day),
        privacyPolicy: null,
      });
      await expect(store.askToConfirm("c@example.com", later(3 * day), { resendAfterMs: day })).resolves.toMatchObject({
        // The new asking is a message of its own...
        optInSince: later(3 * day).toISOString(),
      });
      await store.remove("d@example.com", "link", later(4 * day));
      // ...but the days are counted from the first: signing up again never keeps an address past them.
      await expect(store.removeUnconfirmed(found, later(31 * day))).resolves.toEqual([
        { email: "a@example.com", createdAt: now.toISOString(), optInSince: now.toISOString() },
        { email: "c@example.com", createdAt: later(2).toISOString(), optInSince: later(2).toISOString() },
      ]);
      await harness.settle(store);
      expect((await store.all()).map((row) => row.email)).toEqual(["b@example.com"]);
      expect(await store.departures()).toBe(3);
      await expect(store.expiredUnconfirmed(later(100 * day), 10)).resolves.toEqual([]);
    });

    it("leaves the storage exactly as it found it on every read: count, stats, export, a dry-run prune", async () => {
      // Something of every kind: confirmed after being asked (its note done with), expired, owed, refused, left.
      await store.add(signup("confirmed@example.com", now));
      await store.markConfirmationSent("confirmed@example.com", later(1));
      await store.confirm("confirmed@example.com", { createdAt: now.toISOString(), at: later(2), privacyPolicy: null });
      await store.add(signup("expired@example.com", later(3)));
      await store.markConfirmationSent("expired@example.com", later(4));
      await store.add(signup("asked-again@example.com", later(5)));
      await store.markConfirmationSent("asked-again@example.com", later(6));
      await expect(
        store.askToConfirm("asked-again@example.com", later(2 * day), { resendAfterMs: day }),
      ).resolves.toBeDefined();
      await store.add(signup("refused@example.com", later(6)));
      await store.failConfirmation("refused@example.com", "550 no such mailbox", later(7));
      await store.add(signup("left@example.com", later(8)));
      await store.remove("left@example.com", "link", later(9));
      await store.add(signup("owed@example.com", later(40 * day)));
      // A mailbox's count from a day long gone: only the real pass forgets it.
      await store.countMailboxMail("ab".repeat(16), "2025-05-01");
      await harness.settle(store);
      const before = await harness.snapshot();

      const reads = await Promise.all([
        store.all(),
        store.count(),
        store.confirmationCounts(),
        store.failedConfirmations(),
        store.lastConfirmationError(),
        store.departures(),
        store.statsRows(),
        store.pendingConfirmations(),
        store.dueConfirmations(later(41 * day), 10),
        store.lookup("confirmed@example.com"),
        store.lookup("nobody@example.com"),
      ]);
      expect(reads[1]).toBe(5);
      const dryRun = await pruneUnconfirmed(store, { now: later(40 * day), dryRun: true });
      // Those asked first first: asking again never moves a signup back in the line.
      expect(dryRun.addresses.map((one) => one.email)).toEqual([
        "expired@example.com",
        "asked-again@example.com",
        "refused@example.com",
      ]);
      await pruneUnconfirmed(store, { now: later(100 * day), dryRun: true, limit: 1 });
      expect(await harness.snapshot()).toEqual(before);

      // The real pass does change it (so the snapshot sees changes at all).
      await pruneUnconfirmed(store, { now: later(40 * day) });
      expect(await harness.snapshot()).not.toEqual(before);
    });

    it("reads a signup owed its first mail from before the confirm step as asked from when that mail went", async () => {
      await store.add(signup("owed@example.com", now, { earlier: true }));
      await harness.settle(store);
      await expect(store.expiredUnconfirmed(later(100 * 86_400_000), 10)).resolves.toEqual([]);
      await store.markConfirmationSent("owed@example.com", later(3_600_000));
      await expect(store.expiredUnconfirmed(later(2 * 3_600_000), 10)).resolves.toEqual([
        expect.objectContaining({ email: "owed@example.com", optInSince: later(3_600_000).toISOString() }),
      ]);
    });

    it("gives what stats needs of every signup", async () => {
      await store.add(
        signup("a@example.com", now, { attribution: { ...noAttribution, utmSource: "tiktok" }, mailbox: "m-a" }),
      );
      await store.add(signup("b@example.com", later(1), { attribution: { ...noAttribution, ref: "maya" } }));
      await harness.settle(store);
      const none = { confirmedAt: null, inviteCode: null, invitedBy: null };
      expect(await store.statsRows()).toEqual(
        expect.arrayContaining([
          { createdAt: now.toISOString(), utmSource: "tiktok", utmCampaign: null, ref: null, ...none, mailbox: "m-a" },
          {
            createdAt: later(1).toISOString(),
            utmSource: null,
            utmCampaign: null,
            ref: "maya",
            ...none,
            mailbox: null,
          },
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

    it("counts the e-mails to each mailbox per day, for every store over the storage, and forgets the days gone by", async () => {
      const anna = "0f".repeat(16);
      const bob = "1e".repeat(16);
      expect(await store.countMailboxMail(anna, "2025-06-01")).toBe(1);
      expect(await store.countMailboxMail(anna, "2025-06-01")).toBe(2);
      expect(await store.countMailboxMail(bob, "2025-06-01")).toBe(1);
      const again = await harness.reopen();
      expect(await again.countMailboxMail(anna, "2025-06-01")).toBe(3);
      // A new day, a new count.
      expect(await again.countMailboxMail(anna, "2025-06-02")).toBe(1);
      await again.forgetMailboxMailBefore("2025-06-02");
      expect(await again.countMailboxMail(anna, "2025-06-01")).toBe(1);
      expect(await again.countMailboxMail(anna, "2025-06-02")).toBe(2);
      await again.close();
    });

    it("gives each of the e-mails two instances count at once for one mailbox a number of its own", async () => {
      // Two stores over one storage, as two processes or two function instances have: a count lost would let one
      // more e-mail past the cap, or two past it at once.
      const anna = "2d".repeat(16);
      const other = await harness.reopen();
      const counts = await Promise.all(
        Array.from({ length: 8 }, (_, n) => (n % 2 ? other : store).countMailboxMail(anna, "2025-06-01")),
      );
      expect(counts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await store.countMailboxMail(anna, "2025-06-01")).toBe(9);
      await other.close();
    });
  });
}

/**
 * What announce-policy-change records (AnnouncementLog): a suite of its own until the Netlify Blobs store keeps it
 * too (issue 52), run by sqlite-store.test.ts and postgres-store.test.ts.
 */
export function describeAnnouncementContract(name: string, makeHarness: () => StoreUnderTest): void {
  describe(`${name}: the announcements a signup was sent`, () => {
    let harness: StoreUnderTest;
    let store: FullStore;
    beforeEach(async () => {
      harness = makeHarness();
      store = await harness.open();
      for (const email of ["ada@example.com", "bob@example.com"]) await store.add(signup(email));
      await store.confirm("ada@example.com", { createdAt: now.toISOString(), at: now, privacyPolicy: null });
    });
    afterEach(async () => {
      await store.close();
      await harness.cleanup();
    });

    it("notes an announcement for a confirmed signup once, whatever the store over the storage", async () => {
      expect(await store.noteAnnouncement("ada@example.com", "policy-change-1")).toBe(true);
      expect(await store.noteAnnouncement("ada@example.com", "policy-change-1")).toBe(false);
      const again = await harness.reopen();
      expect(await again.noteAnnouncement("ada@example.com", "policy-change-1")).toBe(false);
      // Another announcement is another note; one that merely begins like it is not it.
      expect(await again.noteAnnouncement("ada@example.com", "policy-change-12")).toBe(true);
      expect(await again.noteAnnouncement("ada@example.com", "policy-change")).toBe(true);
      expect(await again.noteAnnouncement("ada@example.com", "policy-change-1")).toBe(false);
      await again.close();
    });

    it("notes nothing for an address that is not listed or not confirmed", async () => {
      expect(await store.noteAnnouncement("bob@example.com", "policy-change-1")).toBe(false);
      expect(await store.noteAnnouncement("nobody@example.com", "policy-change-1")).toBe(false);
    });

    it("takes a note back after a send that failed, and only the one named", async () => {
      await store.noteAnnouncement("ada@example.com", "first");
      await store.noteAnnouncement("ada@example.com", "second");
      expect(await store.noteAnnouncement("ada@example.com", "first", { undo: true })).toBe(true);
      expect(await store.noteAnnouncement("ada@example.com", "first", { undo: true })).toBe(false);
      expect(await store.noteAnnouncement("ada@example.com", "second")).toBe(false);
      expect(await store.noteAnnouncement("ada@example.com", "first")).toBe(true);
    });

    it("forgets the notes with the signup: a leave takes them, and a new signup of the address has none", async () => {
      await store.noteAnnouncement("ada@example.com", "policy-change-1");
      await store.remove("ada@example.com", "link", later(1000));
      const back = later(2000);
      await store.add(signup("ada@example.com", back));
      await store.confirm("ada@example.com", { createdAt: back.toISOString(), at: back, privacyPolicy: null });
      expect(await store.noteAnnouncement("ada@example.com", "policy-change-1")).toBe(true);
    });

    it("gives one person to one of two runs that note them at once", async () => {
      const other = await harness.reopen();
      const taken = await Promise.all(
        Array.from({ length: 6 }, (_, n) => (n % 2 ? other : store).noteAnnouncement("ada@example.com", "once")),
      );
      expect(taken.filter(Boolean)).toHaveLength(1);
      await other.close();
    });

    it("refuses an id LIKE could read as a pattern or that would split the list", async () => {
      for (const id of ["a%", "a_b", "a,b", ""]) {
        await expect(store.noteAnnouncement("ada@example.com", id)).rejects.toThrow(/letters, digits and "-"/);
      }
    });
  });
}
