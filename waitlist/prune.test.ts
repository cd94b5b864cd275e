import { parseAge, pruneUnconfirmed } from "./prune";
import { letInRetentionMs, unconfirmedRetentionMs as retentionMs, undeliverableRetentionMs } from "./signup-life/rules";
import { SqliteStore } from "./stores/sqlite-store";

const now = new Date("2026-11-23T12:00:00Z");
const ago = (days: number) => new Date(now.getTime() - days * 86_400_000);

let store: SqliteStore;
beforeEach(async () => {
  store = new SqliteStore(":memory:");
  for (let n = 0; n < 600; n++) {
    await store.add({ email: `p${n}@example.com`, emailKey: `p${n}@example.com`, source: "start", at: ago(40) });
  }
  await store.add({ email: "recent@example.com", emailKey: "recent@example.com", source: "start", at: ago(10) });
});
afterEach(() => store.close());

describe("pruneUnconfirmed", () => {
  it("keeps the 30 days the Privacy Policy states", () => {
    expect(retentionMs).toBe(30 * 86_400_000);
  });

  it("lists on a dry run and removes nothing", async () => {
    const { cutoff, addresses, more } = await pruneUnconfirmed(store, { now, dryRun: true });
    expect(cutoff).toBe(ago(30).toISOString());
    expect(addresses).toHaveLength(600);
    expect(addresses[0]).toEqual({
      email: "p0@example.com",
      createdAt: ago(40).toISOString(),
      optInSince: ago(40).toISOString(),
    });
    expect(more).toBe(false);
    expect(await store.count()).toBe(601);
  });

  it("removes every expired signup in batches, counting each as pruned", async () => {
    const { addresses, more } = await pruneUnconfirmed(store, { now });
    expect([addresses.length, more]).toEqual([600, false]);
    expect((await store.all()).map((row) => row.email)).toEqual(["recent@example.com"]);
    expect(await store.departures()).toBe(600);
  });

  it("takes batches of the size it is given: Netlify's sweeps take 50, each step of one at Netlify's speed", async () => {
    const found = jest.spyOn(store, "expiredUnconfirmed");
    const { addresses } = await pruneUnconfirmed(store, { now, batchSize: 50 });
    expect(addresses).toHaveLength(600);
    expect(found.mock.calls.map(([, limit]) => limit)).toEqual(Array.from({ length: 13 }, () => 50));
  });

  it("stops at its limit, and at its deadline before a new batch, saying there is more", async () => {
    await expect(pruneUnconfirmed(store, { now, limit: 120 })).resolves.toMatchObject({ more: true });
    expect(await store.count()).toBe(481);
    // The clock passes the deadline during the first batch (250): that batch finishes, no second one starts.
    let time = 0;
    const clock = () => (time += 1000);
    const { addresses, more } = await pruneUnconfirmed(store, { now, deadline: 1500, clock });
    expect([addresses.length, more]).toEqual([250, true]);
    expect(await store.count()).toBe(231);
    await expect(pruneUnconfirmed(store, { now })).resolves.toMatchObject({ more: false });
    expect(await store.count()).toBe(1);
  });
});

describe("the entries of people let in, after their wave", () => {
  /** A confirmed member let in with `wave` `days` ago. */
  async function letInAgo(email: string, wave: number, days: number) {
    await store.add({ email, emailKey: email, source: "start", at: ago(days + 10) });
    await store.confirm(email, { createdAt: ago(days + 10).toISOString(), at: ago(days + 10), privacyPolicy: null });
    await store.letIn(email, { wave, at: ago(days), createdAt: ago(days + 10).toISOString(), mail: true });
  }

  it("are deleted by the daily pass once the policy's 90 days are over, as departures after a wave; a restricted one is kept", async () => {
    expect(letInRetentionMs).toBe(90 * 86_400_000);
    await letInAgo("first@example.com", 1, 91);
    await letInAgo("held@example.com", 1, 91);
    await letInAgo("second@example.com", 2, 89);
    await store.restrict("held@example.com", ago(5));
    const { afterWave } = await pruneUnconfirmed(store, { now });
    expect(afterWave.map(({ email }) => email)).toEqual(["first@example.com"]);
    const left = (await store.all()).map((row) => row.email);
    expect(left).toEqual(expect.arrayContaining(["held@example.com", "second@example.com"]));
    expect(left).not.toContain("first@example.com");
    expect(await store.departureCounts()).toEqual({ left: 0, pruned: 600, afterWave: 1 });
    // Not on a pass that leaves the days gone by alone (Netlify's every-minute sweeps): the daily one does it.
    await store.restrict("held@example.com", null);
    expect((await pruneUnconfirmed(store, { now, daysGoneBy: false })).afterWave).toEqual([]);
    expect((await pruneUnconfirmed(store, { now })).afterWave.map(({ email }) => email)).toEqual(["held@example.com"]);
  });
});

describe("the entries of members whose mail bounced for good (issue 67)", () => {
  it("are deleted by the daily pass 180 days after the bounce, as departures undeliverable; a restricted one is kept", async () => {
    expect(undeliverableRetentionMs).toBe(180 * 86_400_000);
    for (const [email, days] of [
      ["gone@example.com", 181],
      ["held@example.com", 181],
      ["recent@example.org", 179],
    ] as const) {
      await store.add({ email, emailKey: email, source: "start", at: ago(200) });
      await store.confirm(email, { createdAt: ago(200).toISOString(), at: ago(200), privacyPolicy: null });
      await store.markBounced(email, "550 5.1.1 gone", ago(days));
    }
    await store.restrict("held@example.com", ago(5));
    expect((await pruneUnconfirmed(store, { now, daysGoneBy: false })).undeliverable).toEqual([]);
    const { undeliverable } = await pruneUnconfirmed(store, { now });
    expect(undeliverable).toEqual([{ email: "gone@example.com", createdAt: ago(200).toISOString() }]);
    const left = (await store.all()).map((row) => row.email);
    expect(left).toEqual(expect.arrayContaining(["held@example.com", "recent@example.org"]));
    expect(left).not.toContain("gone@example.com");
  });
});

describe("parseAge", () => {
  it("reads days and hours, and nothing else", () => {
    expect(parseAge("30d")).toBe(30 * 86_400_000);
    expect(parseAge("12h")).toBe(12 * 3_600_000);
    for (const text of ["30", "30 d", "1.5d", "-1d", "30m", "", undefined, "99999d"])
      expect(parseAge(text)).toBeUndefined();
  });
});
