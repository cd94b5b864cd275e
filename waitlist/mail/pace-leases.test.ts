import { SqliteStore } from "../stores/sqlite-store";
import { createMailPace, type PaceOptions, type PaceRefusal, type PaceTicket } from "./pace";
import { defaultLeaseMs, restMs } from "./pace-leases";

/*
 * The provider's connections, held together by every process over one store: each shard one connection's lease,
 * each process (a pace of its own, named by its holder) sending only over the leases it holds, on a clock the test
 * moves.
 */

const start = Date.parse("2026-12-01T10:00:00.000Z");
let now = start;
const clock = () => now;
const wait = async (ms: number) => void (now += ms);
/** Postmark's connections made 3, at a rate that would use more. */
const limits = { ratePerSecond: 14, connections: 3, dailyLimit: null };

let store: SqliteStore;
beforeEach(() => {
  now = start;
  store = new SqliteStore(":memory:");
});
afterEach(() => store.close());

const processOf = (holder: string, options: Partial<PaceOptions> = {}) =>
  createMailPace({ store, limits, clock, wait, random: () => 0, log: () => {}, holder, ...options });

describe("the provider's connections, as every process holds them together", () => {
  it("gives as many processes as there are connections a lease each, and the rest none while those live", async () => {
    const processes = ["a", "b", "c", "d", "e"].map((holder) => processOf(holder));
    const outcomes = await Promise.all(processes.map((one) => one.take()));
    const tickets = outcomes.filter((one): one is PaceTicket => one.go);
    expect(tickets.map((one) => one.connection!.lease).sort()).toEqual([0, 1, 2]);
    // The other two: busy until the first of those leases ends, for a sender with time.
    const refused = outcomes.filter((one): one is PaceRefusal => !one.go);
    expect(refused.map((one) => one.reason)).toEqual(["busy", "busy"]);
    for (const one of refused) expect(one.until).toBeGreaterThan(now);
    expect(new Set((await processes[0]!.shards()).map((shard) => shard.lease!.holder)).size).toBe(3);
    for (const ticket of tickets) await ticket.done("sent");
  });

  it("lets a lease lapse when its holder stops taking (a dead process, a frozen function): another takes its shard", async () => {
    const [one, other] = [
      processOf("one", { limits: { ...limits, connections: 1 } }),
      processOf("other", { limits: { ...limits, connections: 1 } }),
    ];
    const ticket = (await one.take()) as PaceTicket;
    await ticket.done("sent");
    const refused = await other.take();
    expect(refused).toMatchObject({ go: false, reason: "busy" });
    // Its lease ends `defaultLeaseMs` after its start: then, and not before, the other process takes the shard.
    now = (refused as PaceRefusal).until;
    expect((refused as PaceRefusal).until).toBeLessThan(start + defaultLeaseMs + 1);
    const taken = (await other.take()) as PaceTicket;
    expect(taken).toMatchObject({ go: true, connection: { lease: 0 } });
    await taken.done("sent");
    expect((await other.shards())[0]!.lease!.holder).toBe("other");
  });

  it("gives its leases back as a process ends (a founder's command): the next takes them at once", async () => {
    const one = processOf("one", { limits: { ...limits, connections: 1 } });
    await ((await one.take()) as PaceTicket).done("sent");
    await one.release();
    const next = await processOf("next", { limits: { ...limits, connections: 1 } }).take();
    expect(next).toMatchObject({ go: true, connection: { lease: 0 } });
    if (next.go) await next.done("sent");
  });

  it("renews a holder's lease with each take, and sends one message at a time over it", async () => {
    const one = processOf("one", { limits: { ...limits, connections: 1 } });
    const first = (await one.take()) as PaceTicket;
    let second: PaceTicket | undefined;
    const next = one.take().then((ticket) => (second = ticket as PaceTicket));
    for (let n = 0; n < 5; n++) await new Promise((resolve) => setImmediate(resolve));
    // Its start has come, its connection not: the message before it is still on it.
    expect(second).toBeUndefined();
    await first.done("sent");
    await next;
    expect(second!.connection).toMatchObject({ lease: 0 });
    const [shard] = await one.shards();
    expect(shard!.lease!.holder).toBe("one");
    expect(shard!.lease!.until).toBeGreaterThan(start + defaultLeaseMs);
    await second!.done("sent");
  });

  it("rests a shard whose connection the provider refused (421): one connection fewer for every sender", async () => {
    const two = { ...limits, connections: 2 };
    const one = processOf("one", { limits: two });
    const ticket = (await one.take()) as PaceTicket;
    const refused = ticket.connection!.lease;
    const awake = 1 - refused;
    ticket.connection!.refused();
    const until = (await ticket.done("throttle")) ?? 0;
    now = until;
    const shards = await one.shards();
    expect(shards[refused]!.lease).toBeUndefined();
    expect(shards[refused]!.rest).toBeGreaterThanOrEqual(until - 2_000 + restMs);
    // Every process, this one too, sends over the other shard's connection only until the rest ends.
    const others = [processOf("other", { limits: two }), one];
    const leases = [];
    for (const sender of others) {
      const taken = await sender.take();
      if (taken.go) {
        leases.push(taken.connection!.lease);
        await taken.done("sent");
      } else leases.push(taken.reason);
    }
    expect(leases).toEqual([awake, "busy"]);
    // The last shard awake does not rest: a refusal of its connection is a throttle's wait only.
    now += 5_000;
    const last = (await others[0]!.take()) as PaceTicket;
    expect(last.connection!.lease).toBe(awake);
    last.connection!.refused();
    await last.done("throttle");
    expect((await one.shards())[awake]!.rest).toBeUndefined();
  });
});
