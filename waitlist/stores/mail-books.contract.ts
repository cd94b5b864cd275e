import type { FullStore } from "./store";

/*
 * The store contract's part on the mail's bookkeeping (store.contract.ts runs it for every store): a bounce, the holds
 * kept after a bounce or a complaint (waitlist/suppressions.ts), the day's figures, the senders' pace, and the once
 * notes the providers' events are acted on by (mail-events/act.ts).
 */

const now = new Date("2025-06-01T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const day = 86_400_000;
const signup = (email: string) => ({ email, emailKey: email, source: "start" as const, at: now });

/** `under` gives the store of the test running, and another over the same storage (a restart, another instance). */
export function describeMailBookkeeping(under: () => { store: FullStore; reopen: () => Promise<FullStore> }): void {
  describe("the mail's bookkeeping", () => {
    let store: FullStore;
    let reopen: () => Promise<FullStore>;
    beforeEach(() => ({ store, reopen } = under()));

    it("keeps the mail's bookkeeping: a bounce, a fingerprint until its time, each day's figures, the senders' pace", async () => {
      for (const email of ["owed@example.com", "ada@example.com"]) await store.add(signup(email));
      await store.confirm("ada@example.com", { createdAt: now.toISOString(), at: later(1), privacyPolicy: null });
      await expect(store.markBounced("owed@example.com", "550 5.1.1 gone", later(2))).resolves.toBe("refused");
      await expect(store.markBounced("ada@example.com", "550 5.1.1 gone", later(2))).resolves.toBe("undeliverable");
      await expect(store.markBounced("nobody@example.com", "550", later(2))).resolves.toBeUndefined();
      await store.suppress("f1", later(day), "bounce");
      await store.suppress("f1", later(2), "complaint");
      await expect(store.suppressedUntil("f1", later(day - 1))).resolves.toBe(later(day).toISOString());
      await expect(store.suppressedUntil("f1", later(day))).resolves.toBeUndefined();
      await store.forgetSuppressionsBefore(later(2 * day));
      await expect(store.suppressedUntil("f1", now)).resolves.toBeUndefined();
      // Two stores over one storage, each adding to one day and one setting: none lost.
      const other = await reopen();
      const add = (one: FullStore) => one.swapSetting<number>("mail-pace-0", (n = 0) => n + 1);
      await Promise.all(
        [store, other, store, other].flatMap((one) => [one.countMail("2025-06-01", { sent: 2, bounced: 1 }), add(one)]),
      );
      await store.countMail("2025-06-02", { complained: 1 });
      const days = (await other.mailDays("2025-06-01")).map(({ day, ...counts }) => [day, Object.values(counts)]);
      expect(days).toEqual([
        ["2025-06-01", [8, 0, 4, 0]],
        ["2025-06-02", [0, 0, 0, 1]],
      ]);
      await expect(store.readSetting("mail-pace-0")).resolves.toBe(4);
      await other.close();
    });

    it("holds one address of a mailbox, or the whole mailbox, each read with the other in one call by the mailbox", async () => {
      // m1: a mailbox whose address a1 bounced; m2: a mailbox complained of, with an address of it bounced later.
      await store.suppress("m1", later(day), "bounce", "a1");
      await expect(store.suppressedUntil("m1", now, "a1")).resolves.toBe(later(day).toISOString());
      await expect(store.suppressedUntil("m1", now, "a2")).resolves.toBeUndefined();
      await expect(store.suppressedUntil("m1", now)).resolves.toBeUndefined();
      await store.suppress("m1", later(2 * day), "bounce", "a2");
      await store.suppress("m1", later(2), "bounce", "a1");
      await expect(store.suppressedUntil("m1", now, "a1")).resolves.toBe(later(day).toISOString());
      await store.suppress("m2", later(day), "complaint");
      await store.suppress("m2", later(3 * day), "bounce", "a3");
      await expect(store.suppressedUntil("m2", now, "a4")).resolves.toBe(later(day).toISOString());
      await expect(store.suppressedUntil("m2", now, "a3")).resolves.toBe(later(3 * day).toISOString());
      await expect(store.suppressedUntil("m2", later(2 * day), "a4")).resolves.toBeUndefined();
      // The day's pass keeps a mailbox's holds while one of them lasts, and drops them once all are over.
      await store.forgetSuppressionsBefore(later(day + 1));
      await expect(store.suppressedUntil("m1", later(day + 1), "a1")).resolves.toBeUndefined();
      await expect(store.suppressedUntil("m1", later(day + 1), "a2")).resolves.toBe(later(2 * day).toISOString());
      await expect(store.suppressedUntil("m2", later(day + 1), "a3")).resolves.toBe(later(3 * day).toISOString());
      await store.forgetSuppressionsBefore(later(4 * day));
      for (const [mailbox, address] of [
        ["m1", "a2"],
        ["m2", "a3"],
        ["m2", "a4"],
      ] as const) {
        await expect(store.suppressedUntil(mailbox, now, address)).resolves.toBeUndefined();
      }
    });

    it("gives back a once note whose work failed, drops those of a prefix past their time, and keeps its own key", async () => {
      const other = await reopen();
      await store.once("d-25");
      // A thing given back (the work it guarded failed) is done once again, by the next caller.
      await store.forgetOnce("d-25");
      await expect(other.once("d-25")).resolves.toBe(true);
      await expect(store.once("d-25")).resolves.toBe(false);
      // Notes of one prefix made before a time are dropped (a provider's event ids past their days); others stay.
      await Promise.all(["mail-event-ses-1", "mail-event-ses-2", "d-26"].map((name) => store.once(name)));
      await store.forgetOnceBefore("mail-event-", new Date("2000-01-01T00:00:00Z"));
      await expect(other.once("mail-event-ses-1")).resolves.toBe(false);
      await store.forgetOnceBefore("mail-event-", new Date("2100-01-01T00:00:00Z"));
      for (const name of ["mail-event-ses-1", "mail-event-ses-2"]) await expect(other.once(name)).resolves.toBe(true);
      await expect(other.once("d-26")).resolves.toBe(false);
      // The fingerprints' key is a secret of its own, whatever the links' is, made once.
      await expect(other.secret("fingerprint", () => "f".repeat(64))).resolves.toBe("f".repeat(64));
      await expect(store.secret("fingerprint", () => "e".repeat(64))).resolves.toBe("f".repeat(64));
      await expect(store.secret("leave", () => "l".repeat(32))).resolves.toBe("l".repeat(32));
      await other.close();
    });
  });
}
