import { noAttribution } from "../attribution";
import * as life from "../signup-life/signup-life";
import * as wholeList from "../signup-life/whole-list";
import { pruneUnconfirmed } from "../prune";
import type { NewSignup } from "../signup-life/types";
import { describeMailBookkeeping } from "./mail-books.contract";
import type { FullStore } from "./store";

/*
 * What every store must keep, whatever it keeps its data in: one suite, run by each store's test file, so a
 * behaviour cannot exist on one deployment only. The rules themselves (what a transition does or refuses) are
 * signup-life's, tested once in signup-life/signup-life.test.ts; here, that each store keeps what they return, and
 * what only a store does: its keys, its races, its indexes and reads, its secrets and counts.
 */

export interface StoreUnderTest {
  /** A store over fresh, empty storage. */
  open(): Promise<FullStore>;
  /** Another store over the same storage: a restart, or another function instance. */
  reopen(): Promise<FullStore>;
  /** Everything the storage holds, to compare: every table's rows, or every blob and its contents. */
  snapshot(): Promise<unknown>;
  /** What a store's scheduled runs do to its own bookkeeping (Netlify Blobs files its ledger); nothing for SQL. */
  settle?(store: FullStore): Promise<unknown>;
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
    const settle = async (one: FullStore) => harness.settle?.(one);
    /** The person confirms the signup stored at `createdAt`, at `at`. */
    const confirmAt = (email: string, createdAt = now, at = later(1)) =>
      store.confirm(email, { createdAt: createdAt.toISOString(), at, privacyPolicy: null });
    beforeEach(async () => {
      harness = makeHarness();
      store = await harness.open();
    });
    afterEach(async () => {
      await store.close();
      await harness.cleanup();
    });

    it("adds an address once, by its key, keeping every field of signup-life's record and counting a repeat", async () => {
      const attribution = { ...noAttribution, utmSource: "tiktok", ref: "maya", landingPath: "/" };
      const entry = signup("Ada@Example.com", now, { attribution, privacyPolicy: "p", consent: "c" });
      entry.mailboxDigest = "m";
      await expect(store.add(entry)).resolves.toEqual({ added: true, createdAt: now.toISOString() });
      await expect(store.add(signup("ada@example.com", later(1000)))).resolves.toMatchObject({ added: false });
      // Owed its confirmation, oldest first; an import (sent elsewhere) owes none.
      await store.add(signup("first@example.com", later(-5)));
      await store.add(signup("imported@example.com", later(1), { confirmationSentAt: now }));
      const owed = (await store.dueConfirmations(later(10), 100)).map((one) => [one.email, one.askedSince]);
      expect(owed).toEqual([
        ["first@example.com", later(-5).toISOString()],
        [entry.email, now.toISOString()],
      ]);
      // A smaller batch: one of those owed (Netlify Blobs reads no more records than the batch, along a walk).
      expect((await store.dueConfirmations(later(10), 1)).length).toBe(1);
      await settle(store);
      expect((await store.all())[1]).toEqual(life.signupOf(life.repeat(life.add(entry, now, { inviterKnown: false }))));
      expect(await store.count()).toBe(3);
      expect(await store.confirmationCounts()).toEqual({ sent: 1, pending: 2, failed: 0 });
    });

    it("stores an address once when two instances add it at once, and keeps it for the next store", async () => {
      // Two stores over one storage, as two processes or two function instances have: the conditional write decides.
      const other = await harness.reopen();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, n) =>
          (n % 2 ? other : store).add(signup(n % 3 ? "r@x.com" : "R@x.com", later(n))),
        ),
      );
      expect(results.filter((result) => result.added)).toHaveLength(1);
      await settle(other);
      await expect(other.all()).resolves.toEqual([expect.objectContaining({ emailKey: "r@x.com", repeatSignups: 11 })]);
      await other.close();
    });

    it("keeps each step of a confirmation e-mail: a claim and its attempts, a retry, a send, a refusal", async () => {
      for (const [n, name] of ["a", "b", "x"].entries()) await store.add(signup(`${name}@example.com`, later(n)));
      await expect(store.claimConfirmation("a@example.com", { now, leaseMs: 2_000 })).resolves.toBe(1);
      await expect(store.claimConfirmation("a@example.com", { now, leaseMs: 2_000 })).resolves.toBeUndefined();
      await expect(store.claimConfirmation("b@example.com", { now, leaseMs: 2_000 })).resolves.toBe(1);
      await store.releaseConfirmation("b@example.com", "421 try later", later(30_000));
      await store.failConfirmation("x@example.com", "550 5.1.1 no such user", now);
      // a's sender died holding it: another takes it once its lease has passed, and sends it.
      await expect(store.claimConfirmation("a@example.com", { now: later(2_001), leaseMs: 2_000 })).resolves.toBe(2);
      await store.markConfirmationSent("a@example.com", later(3_000));
      expect((await store.dueConfirmations(later(30_000), 100)).map((owed) => owed.email)).toEqual(["b@example.com"]);
      await settle(store);
      const steps = (await store.all()).map((row) => [row.state, row.confirmationSentAt, row.confirmationAttempts]);
      expect(steps).toEqual([
        ["sent", later(3_000).toISOString(), 2],
        ["owed", null, 1],
        ["refused", null, 0],
      ]);
      expect(await store.confirmationCounts()).toEqual({ sent: 1, pending: 1, failed: 1 });
      expect(await store.failedConfirmations()).toEqual([
        { email: "x@example.com", failedAt: now.toISOString(), error: "550 5.1.1 no such user" },
      ]);
      expect(await store.lastConfirmationError()).toBe("421 try later");
    });

    it("removes every record of an address, owed confirmation included, and counts the departure", async () => {
      await store.add(signup("Leaving.Person@example.com"));
      await store.add(signup("stays@example.com", later(1)));
      await settle(store);
      const removed = { email: "Leaving.Person@example.com", createdAt: now.toISOString() };
      await expect(store.remove("leaving.person@example.com", "link", later(10))).resolves.toEqual(removed);
      await expect(store.remove("leaving.person@example.com", "link", later(20))).resolves.toBeUndefined();
      expect((await store.pendingConfirmations()).map((owed) => owed.email)).toEqual(["stays@example.com"]);
      await expect(store.claimConfirmation("leaving.person@example.com", { now, leaseMs: 1 })).resolves.toBeUndefined();
      await settle(store);
      expect((await store.all()).map((row) => row.email)).toEqual(["stays@example.com"]);
      expect([await store.count(), await store.departures()]).toEqual([1, 1]);
      // Back later: a new signup, owed a new confirmation.
      await expect(store.add(signup("leaving.person@example.com", later(30)))).resolves.toMatchObject({ added: true });
      await settle(store);
      expect((await store.all())[1]).toMatchObject({ createdAt: later(30).toISOString(), state: "owed" });
      expect(await store.pendingConfirmations()).toHaveLength(2);
    });

    it("keeps a digest of a leaver the launch tool had until the retention forgets it, none of anyone else, and counts departures by time", async () => {
      for (const [n, email] of ["left@example.com", "member@example.com", "pruned@example.com"].entries())
        await store.add(signup(email, later(n)));
      await Promise.all(
        ["left@example.com", "member@example.com"].map((email, n) => confirmAt(email, later(n), later(5))),
      );
      await store.letIn("left@example.com", { wave: 1, at: later(6), createdAt: now.toISOString(), mail: false });
      await settle(store);
      await store.remove("left@example.com", "one-click", later(10), "d1".repeat(16));
      await store.remove("member@example.com", "complaint", later(day), "d2".repeat(16));
      await store.removeUnconfirmed(await store.expiredUnconfirmed(later(day + 10), 100), later(day + 10));
      await settle(store);
      const kept = { digest: "d1".repeat(16), leftAt: expect.stringMatching(/^2025-06-01/) as unknown };
      expect(await store.leaverDigests(now)).toEqual([kept]);
      expect(await store.leaverDigests(later(2 * day))).toEqual([]);
      // The departures of a span of time (the founders' digest of a day), a complaint among those who left.
      await expect(store.departureCounts()).resolves.toEqual({ left: 2, pruned: 1, afterWave: 0 });
      const between = (from: Date, to: Date) => store.departureCounts({ from, to });
      await expect(between(later(day), later(2 * day))).resolves.toEqual({ left: 1, pruned: 1, afterWave: 0 });
      // The day's pass forgets the digests of the days gone by; the departures stay, counted, naming nobody.
      await store.forgetLeaverDigestsBefore(later(day));
      expect(await store.leaverDigests(now)).toEqual([]);
      await expect(between(now, later(day))).resolves.toEqual({ left: 1, pruned: 0, afterWave: 0 });
    });

    it("keeps the first confirmation of the signup its link was for, with the Privacy Policy then in force", async () => {
      await store.add(signup("ada@example.com", now, { privacyPolicy: "2025-06-01" }));
      const listed = { email: "ada@example.com", createdAt: now.toISOString(), confirmedAt: null, inviteCode: null };
      await expect(store.lookup("ada@example.com")).resolves.toEqual({ ...listed, confirmedInvites: 0 });
      const confirmation = { createdAt: now.toISOString(), at: later(60_000), privacyPolicy: "2026-11-23" };
      const first = { confirmedAt: later(60_000).toISOString(), first: true, inviteCode: "AdaCode12345" };
      const confirm = (extra = {}, email = "ada@example.com") => store.confirm(email, { ...confirmation, ...extra });
      await expect(confirm({ inviteCode: "AdaCode12345" })).resolves.toEqual(first);
      await expect(confirm({ at: later(1) })).resolves.toEqual({ ...first, first: false });
      await expect(confirm({ createdAt: later(1).toISOString() })).resolves.toBeUndefined();
      await expect(confirm({}, "nobody@example.com")).resolves.toBeUndefined();
      await expect(store.lookup("nobody@example.com")).resolves.toBeUndefined();
      await settle(store);
      const [kept] = await store.all();
      expect(kept).toMatchObject({ confirmedAt: first.confirmedAt, privacyPolicyAtConfirm: "2026-11-23" });
    });

    describe("invites (invites.ts): credit that cannot be gamed", () => {
      /** Signs up `email` (its mailbox digest `mailbox`), by `invitedBy`'s link, and confirms it unless told not to. */
      const join = async (email: string, mailbox: string, invitedBy?: string, confirm = true, at = now) => {
        await store.add(signup(email, at, { mailboxDigest: mailbox, invitedBy }));
        return confirm ? (await confirmAt(email.toLowerCase(), at))!.inviteCode : undefined;
      };
      const invites = async (email: string) => (await store.lookup(email))!.confirmedInvites;

      // Which invites count is signup-life's rule, held on every store by read-rules.parity.test.ts; here, what the
      // store keeps of an invite, and that a confirm and a leave move its count.
      it("keeps a confirmed signup's code as who invited a signup, counts it once it confirms, and no more once it left", async () => {
        const code = (await join("anna@example.com", "m-anna"))!;
        await join("carl@example.com", "m-carl", code, false);
        // Neither an unknown code nor an unconfirmed signup's is kept as who invited a signup.
        await join("dan@example.com", "m-dan", "NoSuchCode12");
        await settle(store);
        expect(await invites("anna@example.com")).toBe(0);
        await confirmAt("carl@example.com", now, later(2));
        await settle(store);
        expect(await invites("anna@example.com")).toBe(1);
        const rows = await store.all();
        expect(rows.find((row) => row.email === "carl@example.com")).toMatchObject({
          invitedBy: code,
          mailboxDigest: "m-carl",
        });
        expect(rows.find((row) => row.email === "dan@example.com")!.invitedBy).toBeNull();
        await store.remove("carl@example.com", "link", later(5));
        await settle(store);
        expect(await invites("anna@example.com")).toBe(0);
        // Another of carl's spellings, confirmed, counts him again.
        await join("carl+new@example.com", "m-carl", code, true, later(6));
        await settle(store);
        expect(await invites("anna@example.com")).toBe(1);
      });
    });

    it("does a thing once (the founders' digest of a day) and makes a secret once, however many instances race", async () => {
      const other = await harness.reopen();
      const results = await Promise.all(Array.from({ length: 10 }, (_, n) => (n % 2 ? other : store).once("d-25")));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(other.once("d-25")).resolves.toBe(false);
      let made = 0;
      const make = () => `secret-${++made}`.padEnd(32, "x");
      const secrets = await Promise.all([store.secret("leave", make), other.secret("leave", make)]);
      expect(secrets[0]).toMatch(/^secret-[12]x+$/);
      await expect(other.secret("leave", make)).resolves.toBe(secrets[0]);
      expect(secrets[1]).toBe(secrets[0]);
      await other.close();
    });

    it("keeps an asking: one from before the confirm step asked, a repeat asked again, the first asking's day kept", async () => {
      await store.add(signup("earlier@example.com", now, { earlier: true, confirmationSentAt: now }));
      await store.add(signup("lost@example.com", now));
      await store.markConfirmationSent("lost@example.com", later(1_000));
      const owed = { email: "earlier@example.com", emailKey: "earlier@example.com", createdAt: now.toISOString() };
      await expect(store.askToConfirm(owed.email, later(day))).resolves.toEqual({
        ...owed,
        askedSince: later(day).toISOString(),
      });
      await expect(store.askToConfirm("nobody@example.com", later(day))).resolves.toBeUndefined();
      const again = later(day + 1_000).toISOString();
      const asked = await store.askToConfirm("lost@example.com", new Date(again), { resendAfterMs: day });
      expect(asked?.askedSince).toBe(again);
      const since = Object.fromEntries((await store.pendingConfirmations()).map((one) => [one.email, one.askedSince]));
      expect(since).toEqual({ "earlier@example.com": later(day).toISOString(), "lost@example.com": again });
      await settle(store);
      // The retention counts from the first asking, whatever was sent since, those asked first first, up to a limit.
      const kept = Object.fromEntries((await store.all()).map((one) => [one.email, one.optInSince]));
      expect(kept).toEqual({ "earlier@example.com": later(day).toISOString(), "lost@example.com": now.toISOString() });
      const expired = async (limit: number) =>
        (await store.expiredUnconfirmed(later(40 * day), limit)).map((one) => one.email);
      await expect(expired(10)).resolves.toEqual(["lost@example.com", "earlier@example.com"]);
      await expect(expired(1)).resolves.toEqual(["lost@example.com"]);
    });

    // What has expired is signup-life's rule, held on every store by read-rules.parity.test.ts; here, the limit, and
    // that asking one from before the confirm step starts its days.
    it("removes the expired signups found, as pruned, unless they confirmed or left since; asking again gains no time", async () => {
      for (const [index, email] of ["a@example.com", "b@example.com", "c@example.com", "d@example.com"].entries()) {
        await store.add(signup(email, later(index)));
        await store.markConfirmationSent(email, later(10));
      }
      await settle(store);
      const found = await store.expiredUnconfirmed(later(31 * day), 10);
      expect(found).toHaveLength(4);
      // Between finding and removing: b confirms, c signs up again a day later and is asked again, d leaves.
      await confirmAt("b@example.com", later(1), later(2 * day));
      await store.askToConfirm("c@example.com", later(3 * day), { resendAfterMs: day });
      await store.remove("d@example.com", "link", later(4 * day));
      // The days are counted from the first asking: signing up again never keeps an address past them.
      await expect(store.removeUnconfirmed(found, later(31 * day))).resolves.toEqual([
        { email: "a@example.com", createdAt: now.toISOString(), optInSince: now.toISOString() },
        { email: "c@example.com", createdAt: later(2).toISOString(), optInSince: later(2).toISOString() },
      ]);
      await settle(store);
      expect((await store.all()).map((row) => row.email)).toEqual(["b@example.com"]);
      expect(await store.departureCounts()).toEqual({ left: 1, pruned: 2, afterWave: 0 });
    });

    it("leaves the storage exactly as it found it on every read: count, stats, export, a dry-run prune", async () => {
      // Something of every kind: confirmed after being asked (its note done with), expired, asked again, refused, left.
      const mailed = async (email: string, at: number) => {
        await store.add(signup(email, later(at)));
        await store.markConfirmationSent(email, later(at + 1));
      };
      await mailed("confirmed@example.com", 0);
      await confirmAt("confirmed@example.com", now, later(2));
      await mailed("expired@example.com", 3);
      await mailed("asked-again@example.com", 5);
      await store.askToConfirm("asked-again@example.com", later(2 * day), { resendAfterMs: day });
      await store.add(signup("refused@example.com", later(6)));
      await store.failConfirmation("refused@example.com", "550 no such mailbox", later(7));
      await mailed("left@example.com", 8);
      await store.remove("left@example.com", "link", later(10));
      await store.add(signup("owed@example.com", later(40 * day)));
      // A mailbox's count from a day long gone: only the real pass forgets it.
      await store.countMailboxMail("ab".repeat(16), "2025-05-01");
      await settle(store);
      const before = await harness.snapshot();
      const reads: Promise<unknown>[] = [store.all(), store.count(), store.confirmationCounts()];
      reads.push(store.failedConfirmations(), store.lastConfirmationError(), store.departures(), store.listRows());
      reads.push(store.pendingConfirmations(), store.dueConfirmations(later(41 * day), 10), store.lookup("x@x"));
      reads.push(store.lookup("confirmed@example.com"), store.signup("confirmed@example.com"), store.signup("x@x"));
      await Promise.all(reads);
      const dryRun = await pruneUnconfirmed(store, { now: later(40 * day), dryRun: true });
      // Those asked first first: asking again never moves a signup back in the line.
      const found = dryRun.addresses.map((one) => one.email.split("@")[0]);
      expect(found).toEqual(["expired", "asked-again", "refused"]);
      await pruneUnconfirmed(store, { now: later(100 * day), dryRun: true, limit: 1 });
      expect(await harness.snapshot()).toEqual(before);
      // The real pass does change it (so the snapshot sees changes at all).
      await pruneUnconfirmed(store, { now: later(40 * day) });
      expect(await harness.snapshot()).not.toEqual(before);
    });

    it("gives the founders' figures what they need of every signup, and one signup's every field by its key", async () => {
      const attribution = { ...noAttribution, ref: "maya", landingPath: "/" };
      const entry = signup("Ada@Example.com", now, { attribution, privacyPolicy: "p", mailboxDigest: "m" });
      await store.add(entry);
      await settle(store);
      expect(await store.listRows()).toEqual([wholeList.listRowOf(life.add(entry, now, { inviterKnown: false }))]);
      await store.add(signup("bob@example.com", later(1)));
      await confirmAt("ada@example.com", now, later(3));
      await store.noteAnnouncement("ada@example.com", "change-1");
      // Read by its key at once, as the whole list has it: no fold or sweep needed first, whatever the store.
      const ada = await store.signup("ada@example.com");
      expect(ada).toMatchObject({ ref: "maya", confirmedAt: later(3).toISOString(), announcements: ["change-1"] });
      await settle(store);
      expect(await store.all()).toEqual([ada, await store.signup("bob@example.com")]);
      await store.remove("bob@example.com", "link", later(4));
      for (const gone of ["bob@example.com", "nobody@example.com"]) expect(await store.signup(gone)).toBeUndefined();
    });

    // The mail's bookkeeping, in a file of its own: holds after a bounce or a complaint, the day's figures, once notes.
    describeMailBookkeeping(() => ({ store, reopen: () => harness.reopen() }));

    it("counts the e-mails to each mailbox per day, each of those counted at once its own number, and forgets days gone by", async () => {
      // Two stores over one storage, as two processes have: a count lost would let one more e-mail past the cap.
      const [anna, bob] = ["0f".repeat(16), "1e".repeat(16)];
      const other = await harness.reopen();
      const counts = await Promise.all(
        Array.from({ length: 8 }, (_, n) => (n % 2 ? other : store).countMailboxMail(anna, "2025-06-01")),
      );
      expect(counts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await store.countMailboxMail(bob, "2025-06-01")).toBe(1);
      expect(await other.countMailboxMail(anna, "2025-06-02")).toBe(1);
      await other.forgetMailboxMailBefore("2025-06-02");
      expect(await store.countMailboxMail(anna, "2025-06-01")).toBe(1);
      expect(await store.countMailboxMail(anna, "2025-06-02")).toBe(2);
      await other.close();
    });

    it("notes an announcement for a confirmed signup once, whatever the store, and forgets it with the signup", async () => {
      for (const email of ["ada@example.com", "bob@example.com"]) await store.add(signup(email));
      const confirmAda = (at: Date) =>
        store.confirm("ada@example.com", { createdAt: at.toISOString(), at, privacyPolicy: null });
      await confirmAda(now);
      const other = await harness.reopen();
      const taken = await Promise.all(
        Array.from({ length: 6 }, (_, n) => (n % 2 ? other : store).noteAnnouncement("ada@example.com", "change-1")),
      );
      expect(taken.filter(Boolean)).toHaveLength(1);
      // Another announcement is another note; one that merely begins like it is not it. Nothing for the unconfirmed.
      expect(await other.noteAnnouncement("ada@example.com", "change-12")).toBe(true);
      expect(await other.noteAnnouncement("ada@example.com", "change")).toBe(true);
      expect(await store.noteAnnouncement("bob@example.com", "change-1")).toBe(false);
      expect(await store.noteAnnouncement("nobody@example.com", "change-1")).toBe(false);
      // Taken back after a send that failed.
      expect(await store.noteAnnouncement("ada@example.com", "change", { undo: true })).toBe(true);
      await expect(store.noteAnnouncement("ada@example.com", "a%")).rejects.toThrow(/letters, digits and "-"/);
      await settle(store);
      const [ada] = (await store.all()).filter((row) => row.email === "ada@example.com");
      expect(ada!.announcements).toEqual(["change-1", "change-12"]);
      // A leave takes the notes; a new signup of the address has none.
      await store.remove("ada@example.com", "link", later(1000));
      await store.add(signup("ada@example.com", later(2000)));
      await confirmAda(later(2000));
      expect(await store.noteAnnouncement("ada@example.com", "change-1")).toBe(true);
      await other.close();
    });

    it("lets a confirmed signup in with one wave, whatever the store and however many runs race, and keeps its mail's steps", async () => {
      await store.add(signup("ada@example.com"));
      await confirmAt("ada@example.com", now, now);
      const wave = (number: number) => ({ wave: number, at: later(day), createdAt: now.toISOString(), mail: true });
      const other = await harness.reopen();
      // Two runs at once, each its own wave: one takes her. Nobody unlisted.
      const taken = await Promise.all(
        Array.from({ length: 6 }, (_, n) => (n % 2 ? other : store).letIn("ada@example.com", wave(1 + (n % 2)))),
      );
      expect(taken.filter(Boolean)).toHaveLength(1);
      const first = taken.indexOf(true) % 2 ? 2 : 1;
      expect(await store.letIn("nobody@example.com", wave(3))).toBe(false);
      // Her e-mail: taken by one run of two, sent; another wave's steps are not hers.
      const took = await Promise.all([store, other].map((one) => one.letInMail("ada@example.com", "take", first)));
      expect(took.filter(Boolean)).toHaveLength(1);
      expect(await store.letInMail("ada@example.com", "sent", 3 - first)).toBe(false);
      expect(await other.letInMail("ada@example.com", "sent", first)).toBe(true);
      await settle(store);
      const [kept] = await store.all();
      expect([kept!.wave, kept!.letInAt, kept!.letInMail]).toEqual([first, later(day).toISOString(), "sent"]);
      // A leave takes the wave; her new signup, confirmed, is in none and may be let in again.
      await store.remove("ada@example.com", "link", later(2 * day));
      await store.add(signup("ada@example.com", later(3 * day), { attribution: { ...noAttribution, ref: "maya" } }));
      const again = { createdAt: later(3 * day).toISOString(), at: later(3 * day), privacyPolicy: null };
      await store.confirm("ada@example.com", again);
      expect(await store.letInMail("ada@example.com", "take", first)).toBe(false);
      // Objections noted once (the first kept), an attribution cleared; a restriction keeps her from any wave till lifted.
      expect(await store.objectTo("ada@example.com", "ranking", later(4 * day))).toBe(later(4 * day).toISOString());
      expect(await other.objectTo("ada@example.com", "ranking", later(5 * day))).toBe(later(4 * day).toISOString());
      expect(await store.objectTo("nobody@example.com", "ranking", later(5 * day))).toBeUndefined();
      await store.objectTo("ada@example.com", "attribution", later(4 * day));
      const launchTool = { wave: 4, at: later(3 * day), createdAt: again.createdAt, mail: false };
      await other.restrict("ada@example.com", later(5 * day));
      expect(await store.letIn("ada@example.com", launchTool)).toBe(false);
      await store.restrict("ada@example.com", null);
      expect(await other.letIn("ada@example.com", launchTool)).toBe(true);
      await settle(other);
      const [ada] = await other.all();
      const noted = later(4 * day).toISOString();
      expect(ada).toMatchObject({ wave: 4, letInMail: "launch-tool", ref: null, restrictedAt: null });
      expect([ada!.rankingObjectedAt, ada!.attributionObjectedAt]).toEqual([noted, noted]);
      await other.close();
    });
  });
}
