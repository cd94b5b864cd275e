import { SqliteStore } from "../stores/sqlite-store";
import { createMailPace, takeWaiting, type PaceOptions, type PaceTicket } from "./pace";

/*
 * The one pace, over a real store, on a clock the test moves: every sender's start is the schedule's, so that
 * together they keep the provider's rate, its daily limit and its holds; several senders (processes, function
 * instances) each a pace of their own over the same store.
 */

const start = Date.parse("2026-12-01T10:00:00.000Z");
let now = start;
const clock = () => now;
/** Waiting moves the clock: the test's senders take no real time. */
const wait = async (ms: number) => void (now += ms);
const ses = { ratePerSecond: 14, connections: 10, dailyLimit: 50_000 };

let store: SqliteStore;
beforeEach(() => {
  now = start;
  store = new SqliteStore(":memory:");
});
afterEach(() => store.close());

/** A sender's pace; the test's senders are one process, holding the same leases, unless a test names its own. */
const paceOf = (options: Partial<PaceOptions> = {}) =>
  createMailPace({ store, limits: ses, clock, wait, random: () => 0, log: () => {}, holder: "this", ...options });

/** Takes `count` starts in turn from `paces` and tells each "sent"; resolves with when each started. */
async function sendFrom(paces: ReturnType<typeof paceOf>[], count: number) {
  const starts: number[] = [];
  for (let n = 0; n < count; n++) {
    const ticket = await paces[n % paces.length]!.take();
    if (!ticket.go) throw new Error(`refused: ${ticket.reason}`);
    starts.push(now);
    await ticket.done("sent");
  }
  return starts;
}

describe("the pace every sender keeps", () => {
  it("spaces every sender's starts by the provider's rate together, with a jitter's share to spare", async () => {
    const starts = await sendFrom([paceOf(), paceOf(), paceOf()], 140);
    // 14 a second, less the jitter's share: one start every 86 ms (1.2 s / 14), whoever takes it.
    const gaps = starts.slice(1).map((at, n) => at - starts[n]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(Math.floor(1200 / 14));
    for (let n = 0; n + 14 <= starts.length; n++) expect(starts[n + 13]! - starts[n]!).toBeGreaterThanOrEqual(1000);
  });

  it("spreads its starts over shards, each on its phase of one grid: a burst's senders write different blobs, and idle shards start no burst", async () => {
    let draw = 0;
    const sharded = () => paceOf({ shards: 4, random: () => (draw++ % 4) / 4 });
    const starts = await sendFrom([sharded(), sharded()], 56);
    // One start every 86 ms of the four shards together, from the first: never four at once.
    const gaps = starts.slice(1).map((at, n) => at - starts[n]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(Math.floor(1200 / 14));
    for (let n = 0; n + 14 <= starts.length; n++) expect(starts[n + 13]! - starts[n]!).toBeGreaterThanOrEqual(1000);
    // Each shard took a share: a lone sender takes the shard whose phase comes next, about one in four each.
    const sent = (await sharded().shards()).map((shard) => shard.sent);
    expect(sent.reduce((sum, n) => sum + n, 0)).toBe(56);
    for (const share of sent) expect(share).toBeGreaterThanOrEqual(10);
  });

  it("gives no start further off than a sender may wait: the message stays owed for a sender with time", async () => {
    // Senders that do not wait for their starts (the clock stands still): the schedule runs ahead of now.
    const pace = paceOf({ maxWaitMs: 1_000, wait: async () => {} });
    const reasons: string[] = [];
    for (let n = 0; n < 20; n++) {
      const ticket = await pace.take();
      if (ticket.go) await ticket.done("unused");
      reasons.push(ticket.go ? "go" : ticket.reason);
    }
    // The starts within a second at 14 a second less the jitter's share (one every 86 ms: 11 or 12, as the second
    // falls on the grid), then none: each refusal is "busy".
    const goes = reasons.lastIndexOf("go") + 1;
    expect(goes).toBeGreaterThanOrEqual(11);
    expect(goes).toBeLessThanOrEqual(12);
    expect(reasons).toEqual([...Array(goes).fill("go"), ...Array(20 - goes).fill("busy")]);
  });

  it("sends a message on to the shard whose turn comes next when the one it drew is busy; busy only when no shard has a start in time", async () => {
    // 4 a second: four shards of eight in use, each 1.2 s apart, a start every 0.3 s of them together; every sender
    // drawing shard 0 and waiting 0.4 s at most.
    const four = { ...ses, ratePerSecond: 4 };
    const starts = await sendFrom([paceOf({ shards: 8, limits: four, maxWaitMs: 400 })], 8);
    const gaps = starts.slice(1).map((at, n) => at - starts[n]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(299);
    expect(Math.max(...gaps)).toBeLessThan(601);
    // Senders that do not wait (the clock stands still): the starts within their 0.4 s taken, the rest are "busy".
    const still = paceOf({ shards: 8, limits: four, maxWaitMs: 400, wait: async () => {} });
    const outcomes = [];
    for (let n = 0; n < 4; n++) {
      const ticket = await still.take();
      outcomes.push(ticket.go ? "go" : ticket.reason);
      if (ticket.go) await ticket.done("sent");
      else expect(ticket.until).toBeLessThanOrEqual(now + 400 + 301);
    }
    expect(outcomes[0]).toBe("go");
    expect(outcomes.slice(outcomes.lastIndexOf("go") + 1)).toEqual(
      Array(4 - outcomes.lastIndexOf("go") - 1).fill("busy"),
    );
    expect(outcomes.filter((one) => one === "go").length).toBeLessThanOrEqual(2);
  });

  it("uses as many shards as a second's messages: at 1 a second one, its starts 1.2 s apart, none seconds off", async () => {
    const pace = paceOf({ shards: 8, limits: { ...ses, ratePerSecond: 1 }, random: Math.random });
    const starts = await sendFrom([pace], 5);
    const gaps = starts.slice(1).map((at, n) => at - starts[n]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1199);
    expect(Math.max(...gaps)).toBeLessThan(1201);
    expect((await pace.shards()).map((shard) => shard.sent)).toEqual([5]);
  });

  it("starts a message no sooner than the window after the one before it was had: a first message slowed by its connection delays the next", async () => {
    const pace = paceOf({ limits: { ...ses, ratePerSecond: 1, connections: 1 } });
    const first = (await pace.take()) as PaceTicket;
    // Its connection opened and greeted on a busy machine: the provider had it 250 ms after its start (the reply
    // 50 ms after that), where the next message, on the open connection, would reach it at once.
    now += 300;
    await first.done("sent", { answeredAfterMs: 50 });
    const second = await pace.take();
    expect(second.go).toBe(true);
    // Not at its 1.2 s start: 1.2 s after the first was had.
    expect(now - start).toBe(250 + 1_200);
  });

  it("waits for the message before it still on its way, and counts one with no timing as had when it is done", async () => {
    const pace = paceOf({ limits: { ...ses, ratePerSecond: 1, connections: 2 } });
    const first = (await pace.take()) as PaceTicket;
    let secondAt: number | undefined;
    const second = pace.take().then((ticket) => {
      secondAt = now;
      return ticket;
    });
    // The second's start comes (1.2 s) while the first is still being sent: it waits for the first's reply.
    await new Promise((resolve) => setImmediate(resolve));
    expect(now - start).toBe(1_200);
    expect(secondAt).toBeUndefined();
    now = start + 1_500;
    await first.done("sent");
    await expect(second).resolves.toMatchObject({ go: true });
    expect(secondAt! - start).toBe(1_500 + 1_200);
  });

  it("holds nothing back for a start given up unused", async () => {
    const pace = paceOf({ limits: { ...ses, ratePerSecond: 1, connections: 1 } });
    const unused = (await pace.take()) as PaceTicket;
    now += 6_000;
    await unused.done("unused");
    // On the grid's start (every 1.2 s) now, and nothing had by the provider in the window before it: at once.
    const at = now;
    await expect(pace.take()).resolves.toMatchObject({ go: true });
    expect(now).toBe(at);
  });

  it("lets no more go in a UTC day than the daily limit, marks nobody, and says so once; the next day goes on", async () => {
    const lines: string[] = [];
    const pace = paceOf({ limits: { ...ses, dailyLimit: 5 }, log: (line) => lines.push(line) });
    await sendFrom([pace], 5);
    const sixth = await pace.take();
    expect(sixth).toMatchObject({ go: false, reason: "quota", until: Date.parse("2026-12-02T00:00:00.000Z") });
    await expect(pace.take()).resolves.toMatchObject({ go: false, reason: "quota" });
    expect(lines).toEqual([expect.stringMatching(/daily quota is used \(the daily limit of 5 messages is reached\)/)]);
    now = Date.parse("2026-12-02T00:00:01.000Z");
    await sendFrom([pace], 5);
    // Yesterday's count went into the day's figures, for the founders' rates.
    expect(await store.mailDays("2026-12-01")).toEqual([
      { day: "2026-12-01", sent: 5, throttled: 0, bounced: 0, complained: 0 },
    ]);
  });

  it("keeps a closed day's count when the first write of the next day is a hold, not a start", async () => {
    const pace = paceOf({ shards: 1 });
    await sendFrom([pace], 3);
    now = Date.parse("2026-12-02T00:00:01.000Z");
    await pace.hold("down");
    expect(await store.mailDays("2026-12-01")).toEqual([
      { day: "2026-12-01", sent: 3, throttled: 0, bounced: 0, complained: 0 },
    ]);
    // The day's figures, or the shard: each message in one of them, never both.
    expect((await pace.shards()).map(({ day, sent }) => ({ day, sent }))).toEqual([{ day: "2026-12-02", sent: 0 }]);
  });

  it("holds every sender a moment after a throttle, longer after each in a row, and slows them for ten minutes", async () => {
    const [one, other] = [paceOf(), paceOf()];
    const ticket = (await one.take()) as PaceTicket;
    const until = (await ticket.done("throttle")) ?? 0;
    expect(until).toBe(now + 2_000);
    await expect(other.take()).resolves.toMatchObject({ go: false, reason: "throttle", until });
    now = until;
    const again = (await other.take()) as PaceTicket;
    expect(await again.done("throttle")).toBe(now + 4_000);
    now += 4_000;
    // Slowed to 70 % of 70 %: the gap between starts is twice what it was, and more.
    const starts = await sendFrom([one], 3);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(Math.floor(1200 / (14 * 0.49)));
    const [shard] = await one.shards();
    expect(shard!.throttled).toBe(2);
  });

  it("holds every sender until the provider's quota window is over after its quota reply, marking nobody", async () => {
    const pace = paceOf();
    const ticket = (await pace.take()) as PaceTicket;
    const until = await ticket.done("quota");
    expect(until).toBe(now + 24 * 3_600_000);
    await expect(pace.take()).resolves.toMatchObject({ go: false, reason: "quota", until });
  });

  it("holds every sender a minute when the server is down, then 2 and 5, until a message goes", async () => {
    const pace = paceOf();
    const holds: number[] = [];
    for (let n = 0; n < 3; n++) {
      const ticket = (await pace.take()) as PaceTicket;
      const until = (await ticket.done("down")) ?? 0;
      holds.push(until - now);
      now = until;
    }
    expect(holds).toEqual([60_000, 120_000, 300_000]);
    // Five deferred in a row say so too; one sent between starts the count again.
    for (const outcome of ["transient", "transient", "transient", "transient", "sent", "transient"] as const) {
      await ((await pace.take()) as PaceTicket).done(outcome);
    }
    await expect(pace.take()).resolves.toMatchObject({ go: true });
  });

  it("waits through a throttle's short hold for a founder's command, and stops at a quota", async () => {
    const pace = paceOf();
    await ((await pace.take()) as PaceTicket).done("throttle");
    const began = now;
    await expect(takeWaiting(pace, { clock, wait })).resolves.toMatchObject({ go: true });
    expect(now - began).toBeGreaterThanOrEqual(2_000);
    await pace.hold("quota");
    await expect(takeWaiting(pace, { clock, wait })).resolves.toMatchObject({ go: false, reason: "quota" });
  });
});
