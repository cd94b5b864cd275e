import { instancePool, onInstance } from "./instances";

/* A function's instances as Lambda runs them: one call at a time each, a cold one started only when all are busy. */

/** A pool whose instances are numbered handlers: each call answers with the number of the instance it ran on. */
function numberedPool() {
  const started: number[] = [];
  const pool = instancePool(async (number) => {
    started.push(number);
    return async () => number;
  });
  return { pool, started };
}

/** A call held open until `release` is called: its instance stays busy meanwhile. */
function heldCall(pool: ReturnType<typeof numberedPool>["pool"], killed = () => false) {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const ran = onInstance(
    pool,
    async (handler) => {
      const number = await handler();
      await held;
      return number;
    },
    killed,
  );
  return { ran, release };
}

describe("a function's instances", () => {
  it("start a cold one for each call while every one is busy", async () => {
    const { pool, started } = numberedPool();
    const calls = Array.from({ length: 5 }, () => heldCall(pool));
    for (const call of calls) call.release();
    expect(await Promise.all(calls.map((call) => call.ran))).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(pool.made()).toBe(5);
  });

  it("give a call to an idle instance, warm, rather than start another", async () => {
    const { pool, started } = numberedPool();
    for (let i = 0; i < 3; i++) expect(await onInstance(pool, (handler) => handler())).toBe(0);
    expect(started).toEqual([0]);
  });

  it("never give a call to an instance whose call was killed at its limit", async () => {
    const { pool } = numberedPool();
    const killed = heldCall(pool, () => true);
    killed.release();
    expect(await killed.ran).toBe(0);
    expect(await onInstance(pool, (handler) => handler())).toBe(1);
    expect(pool.made()).toBe(2);
  });

  it("count the instances calls ran on since a mark, warm or cold", async () => {
    const { pool } = numberedPool();
    await onInstance(pool, (handler) => handler());
    const mark = pool.mark();
    const calls = [heldCall(pool), heldCall(pool), heldCall(pool)];
    for (const call of calls) call.release();
    await Promise.all(calls.map((call) => call.ran));
    expect(pool.usedSince(mark)).toBe(3);
    expect(pool.made()).toBe(3);
    await onInstance(pool, (handler) => handler());
    expect(pool.usedSince(pool.mark() - 1)).toBe(1);
  });
});
