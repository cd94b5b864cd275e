import { fingerprintKeyFrom } from "../fingerprints";
import { suppressionRetentionMs } from "../signup-life/rules";
import { SqliteStore } from "../stores/sqlite-store";
import type { FullStore } from "../stores/store";
import { suppressedUntilBy } from "../suppressions";
import { pruneUnconfirmed } from "../prune";
import { actOnMailEvent, mailEventIdRetentionMs, type ActingOptions } from "./act";
import type { MailEvent } from "./events";

/*
 * What a verified event does to a real SQLite store: whom it holds, for how long, what it counts, and that an event
 * whose change failed part way is acted on when the provider sends it again.
 */

const at = new Date("2026-11-28T10:00:00Z");
const day = 86_400_000;
const fingerprintKey = fingerprintKeyFrom("a-secret-of-at-least-32-characters");
let n = 0;
const event = (kind: MailEvent["kind"], address: string, more: Partial<MailEvent> = {}): MailEvent => ({
  ...{ provider: "ses", id: `event-${++n}`, kind, permanent: true, address, at: at.toISOString() },
  ...more,
});

let store: SqliteStore;
beforeEach(() => {
  store = new SqliteStore(":memory:");
});
afterEach(() => store.close());

const act = (one: MailEvent, options: Partial<ActingOptions> = {}) =>
  actOnMailEvent(one, { store, fingerprintKey, clock: () => at, ...options });
const heldUntil = (emailKey: string, when = at) => suppressedUntilBy(store, fingerprintKey, emailKey, when);
const figures = async () =>
  (await store.mailDays("2026-11-28")).map(({ bounced, complained }) => [bounced, complained]);
const listed = (email: string) => store.add({ email, emailKey: email, source: "start", at });
const until = new Date(at.getTime() + suppressionRetentionMs).toISOString();

describe("whom an event holds", () => {
  it("a bounce holds the one address it names: a stranger's spelling of a mailbox does not silence its owner", async () => {
    await listed("owner+anything@example.com");
    const acted = await act(event("bounce", "owner+anything@example.com"));
    expect(acted.line).toBe(
      "a ses bounce for good: its confirmation is refused for good; the address is not mailed until 2027-05-27",
    );
    expect(await heldUntil("owner+anything@example.com")).toBe(until);
    expect(await heldUntil("owner@example.com")).toBeUndefined();
    expect(await heldUntil("owner+other@example.com")).toBeUndefined();
  });

  it("a complaint holds the person's whole mailbox, every spelling of it", async () => {
    await listed("anna+news@example.com");
    await act(event("complaint", "anna+news@example.com"));
    for (const spelling of ["anna@example.com", "anna+news@example.com", "anna+again@example.com"]) {
      expect(await heldUntil(spelling)).toBe(until);
    }
  });

  it("holds an address no longer listed: someone who left by one-click, then marked the mail as spam", async () => {
    const acted = await act(event("complaint", "gone@example.com"));
    expect(acted).toEqual({
      changed: true,
      line: "a ses complaint: not on the list; its mailbox is not mailed until 2027-05-27",
    });
    expect(await heldUntil("gone+again@example.com")).toBe(until);
    await act(event("bounce", "never@example.com"));
    expect(await heldUntil("never@example.com")).toBe(until);
    expect(await figures()).toEqual([[1, 1]]);
  });
});

describe("an address on the provider's own suppression list (issue 67, H1)", () => {
  const listedThere = (address: string) =>
    event("bounce", address, { alreadySuppressed: true, words: "SES bounce type Permanent OnAccountSuppressionList" });

  it("restarts no days and counts no bounce when it is held here already", async () => {
    await act(event("bounce", "ivy@example.com"));
    const later = new Date(at.getTime() + 30 * day);
    const acted = await act(listedThere("ivy@example.com"), { clock: () => later });
    expect(acted.line).toBe(
      "a ses bounce for good, on ses's own suppression list: not on the list; the address was held already, until 2027-05-27",
    );
    expect(await heldUntil("ivy@example.com", later)).toBe(until);
    expect(await figures()).toEqual([[1, 0]]);
  });

  it("holds it when it was not held here, and still counts no bounce", async () => {
    await listed("ada@example.com");
    const acted = await act(listedThere("ada@example.com"));
    expect(acted.line).toBe(
      "a ses bounce for good, on ses's own suppression list: its confirmation is refused for good; the address is not mailed until 2027-05-27",
    );
    expect(await heldUntil("ada@example.com")).toBe(until);
    expect(await figures()).toEqual([]);
  });
});

describe("a provider's event ids", () => {
  it("are kept for the days an event holds its address, then dropped by the day's pass; an older event is taken as nothing", async () => {
    await act(event("complaint", "once@example.com", { id: "kept" }));
    const again = () => act(event("complaint", "once@example.com", { id: "kept" }));
    expect((await again()).line).toMatch(/already acted on/);
    // The day's pass within the period keeps the id; past it, drops it.
    await pruneUnconfirmed(store, { now: new Date(Date.now() + mailEventIdRetentionMs - day) });
    expect((await again()).line).toMatch(/already acted on/);
    await pruneUnconfirmed(store, { now: new Date(Date.now() + mailEventIdRetentionMs + day) });
    expect(await store.once("mail-event-ses-kept")).toBe(true);
    // An event as old as that, posted again (Postmark signs no time), changes nothing.
    const old = new Date(at.getTime() - mailEventIdRetentionMs - 1).toISOString();
    expect((await act(event("complaint", "old@example.com", { at: old }))).line).toBe(
      "a ses complaint older than the 180 days its id is kept: nothing to do",
    );
    expect(await heldUntil("old@example.com")).toBeUndefined();
  });
});

describe("an event whose change failed part way", () => {
  it("is acted on when the provider sends it again: its id was given back", async () => {
    await listed("busy@example.com");
    const busy = Object.assign(new Error("SQLITE_BUSY: database is locked"), { code: "SQLITE_BUSY" });
    let fail = true;
    // The store fails at the event's last step, as SQLite under another writer's lock does.
    const failing: ActingOptions["store"] = {
      ...pick(store, ["once", "forgetOnce", "markBounced", "remove", "suppress", "suppressedUntil"]),
      countMail: async (...args) => {
        if (fail) throw busy;
        return store.countMail(...args);
      },
    };
    const complaint = event("complaint", "busy@example.com");
    await expect(act(complaint, { store: failing })).rejects.toThrow("SQLITE_BUSY");
    fail = false;
    const again = await act(complaint, { store: failing });
    expect(again.line).toBe("a ses complaint: not on the list; its mailbox is not mailed until 2027-05-27");
    expect(await figures()).toEqual([[0, 1]]);
    // Once it went through, the id is spent: a third delivery changes nothing.
    expect((await act(complaint)).line).toBe("a ses complaint already acted on (the same id): nothing to do");
  });
});

/** The store's own methods, bound, for a test to replace one of them. */
function pick<K extends keyof FullStore>(from: FullStore, names: readonly K[]): Pick<FullStore, K> {
  return Object.fromEntries(
    names.map((name) => [name, (from[name] as (...args: unknown[]) => unknown).bind(from)]),
  ) as Pick<FullStore, K>;
}
