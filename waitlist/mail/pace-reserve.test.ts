import { SqliteStore } from "../stores/sqlite-store";
import { createMailPace, heldWords, takeWaiting, type PaceOptions, type PaceTicket } from "./pace";
import { defaultReserve } from "./pace-reserve";

/*
 * Confirmations first: on a provider with a daily limit, a wave or an announcement gets no start from the share of
 * the day kept for the day's confirmations, on a clock the test moves.
 */

const start = Date.parse("2026-12-01T10:00:00.000Z");
let now = start;
const clock = () => now;
const wait = async (ms: number) => void (now += ms);
/** Resend's free plan: 100 a day. */
const resendFree = { ratePerSecond: 2, connections: 2, dailyLimit: 100 };

let store: SqliteStore;
beforeEach(() => {
  now = start;
  store = new SqliteStore(":memory:");
});
afterEach(() => store.close());

const paceOf = (options: Partial<PaceOptions> = {}) =>
  createMailPace({
    store,
    limits: resendFree,
    clock,
    wait,
    random: () => 0,
    log: () => {},
    holder: "this",
    ...options,
  });

async function send(pace: ReturnType<typeof paceOf>, kind: "confirmation" | "wave", count: number) {
  const outcomes: string[] = [];
  for (let n = 0; n < count; n++) {
    const ticket = await pace.take({ kind });
    outcomes.push(ticket.go ? "go" : ticket.reason);
    if (ticket.go) await ticket.done("sent");
  }
  return outcomes;
}

describe("the confirmations' reserve", () => {
  it("gives a wave no start past the day's limit less the reserve, says why, and leaves the rest to confirmations", async () => {
    const pace = paceOf({ reserve: 30 });
    // A wave of 100 on a day of 100: 70 go, the rest held back until the next UTC day.
    const wave = await send(pace, "wave", 100);
    expect(wave.filter((one) => one === "go")).toHaveLength(70);
    expect(wave.slice(70)).toEqual(Array(30).fill("reserve"));
    const held = await pace.take({ kind: "announcement" });
    expect(held).toMatchObject({ go: false, reason: "reserve", until: Date.parse("2026-12-02T00:00:00.000Z") });
    expect(heldWords(held as never)).toMatch(
      /held back for the confirmations' reserve: nothing more is sent before 2026-12-02T00:00/,
    );
    // A founder's command stops there rather than waiting all day.
    await expect(takeWaiting(pace, { clock, wait, kind: "wave" })).resolves.toMatchObject({ reason: "reserve" });
    // The day's signups still have their 30, and no provider's quota was said to be used.
    expect(await send(pace, "confirmation", 30)).toEqual(Array(30).fill("go"));
    expect((await pace.shards()).some((shard) => shard.hold)).toBe(false);
    // The next day the wave goes on.
    now = Date.parse("2026-12-02T00:00:01.000Z");
    expect(await send(pace, "wave", 1)).toEqual(["go"]);
  });

  it("by default keeps what the busiest of the last 7 days sent, read from the day's figures", async () => {
    const limits = { ...resendFree, dailyLimit: 1_000 };
    // Last week: at most 240 a day; today's own figure is not last week's.
    await store.countMail("2026-11-25", { sent: 240 });
    await store.countMail("2026-11-30", { sent: 120 });
    await store.countMail("2026-11-20", { sent: 900 });
    const pace = paceOf({ limits });
    const outcomes = await send(pace, "wave", 761);
    expect(outcomes.filter((one) => one === "go")).toHaveLength(760);
    expect(outcomes.at(-1)).toBe("reserve");
    const ticket = (await pace.take()) as PaceTicket;
    expect(ticket.go).toBe(true);
    await ticket.done("sent");
  });

  it("has a floor for a site with no history (a tenth of the day and 20), and never keeps more than half the day", () => {
    expect(defaultReserve(100, [])).toBe(20);
    expect(defaultReserve(50_000, [])).toBe(5_000);
    expect(defaultReserve(10_000, [{ day: "2026-11-30", sent: 3_000, throttled: 0, bounced: 0, complained: 0 }])).toBe(
      3_000,
    );
    expect(defaultReserve(100, [{ day: "2026-11-30", sent: 100, throttled: 0, bounced: 0, complained: 0 }])).toBe(50);
  });
});
