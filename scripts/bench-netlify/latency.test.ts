import { startLocalBlobs, type LocalBlobs } from "../../test/support/blobs";
import nodemailer from "nodemailer";
import { startSmtpServer } from "../../test/support/smtp";
import { until } from "../../test/support/until";
import { paceWait } from "../../waitlist/mail/pace";
import {
  drawBlobs,
  drawMail,
  invocation,
  netlifySpeed,
  seeded,
  SimulatedTime,
  simulatedTimer,
  slowBlobs,
} from "./latency";

/** A simulated clock of its own, at 0, and the waits on it. */
function simulated() {
  let now = 0;
  const time = new SimulatedTime(
    () => now,
    (ms) => void (now = ms),
  );
  return { time, now: () => now };
}

/** `count` operations one after another, each `ms` long. */
async function inTurn(time: SimulatedTime, count: number, ms: (i: number) => number) {
  for (let i = 0; i < count; i++) await time.wait(ms(i));
}

describe("waits on the simulated clock", () => {
  it("adds up waits made one after another", async () => {
    const { time, now } = simulated();
    await inTurn(time, 3, () => 40);
    expect(now()).toBe(120);
  });

  it("overlaps waits made at once: ten 40 ms operations together take 40 ms", async () => {
    const { time, now } = simulated();
    await Promise.all(Array.from({ length: 10 }, () => time.wait(40)));
    expect(now()).toBe(40);
  });

  it("lets the other workers go on while one waits on a slow operation", async () => {
    // 4 workers, 10 operations each, one of them 400 ms: the others are done by 400, so the whole is 400 + 9 × 40.
    const { time, now } = simulated();
    const ends: number[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, worker) => {
        await inTurn(time, 10, (i) => (worker === 0 && i === 0 ? 400 : 40));
        ends.push(now());
      }),
    );
    expect(ends).toEqual([400, 400, 400, 760]);
    expect(now()).toBe(760);
  });

  it("lets waits go in the order they are due, whatever the order they were made in", async () => {
    const { time } = simulated();
    const order: string[] = [];
    await Promise.all([
      time.wait(300).then(() => order.push("300")),
      time.wait(100).then(() => order.push("100")),
      time.wait(200).then(() => order.push("200")),
    ]);
    expect(order).toEqual(["100", "200", "300"]);
  });

  it("holds every wait while real work is under way, and counts the wait from when it began", async () => {
    const { time, now } = simulated();
    let answer!: () => void;
    const work = time.busy(() => new Promise<void>((resolve) => (answer = resolve)));
    const waited = time.wait(40, { from: 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(now()).toBe(0);
    answer();
    await Promise.all([work, waited]);
    expect(now()).toBe(40);
  });

  it("fires a limit that the waits pass, at its own time, and drops the waits of what it stopped", async () => {
    const { time, now } = simulated();
    let killed = false;
    let firedAt = -1;
    time.deadline(100, () => {
      killed = true;
      firedAt = now();
    });
    // Three 40 ms operations, the third of them past the limit and dropped; a wait of someone else's goes on.
    const done: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await time.wait(40, { alive: () => !killed });
        done.push(now());
      }
    })();
    await time.wait(200);
    expect(firedAt).toBe(100);
    expect(done).toEqual([40, 80]);
    expect(now()).toBe(200);
  });

  it("never moves the clock for a limit alone, nor for a wait whose owner is gone", async () => {
    const { time, now } = simulated();
    time.deadline(30_000, () => {});
    void time.wait(5_000, { alive: () => false });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(now()).toBe(0);
    expect(time.pending).toBe(0);
  });

  it("moves on to a limit when something waits in real time, which it cannot see, and counts the stall", async () => {
    let now = 0;
    const time = new SimulatedTime(
      () => now,
      (ms) => void (now = ms),
      2,
      50,
    );
    let killed = false;
    time.deadline(30_000, () => void (killed = true));
    // An invocation waiting on a real timer of its own: nothing the simulation sees changes.
    await until(() => killed, 5_000);
    expect(now).toBe(30_000);
    expect(time.totals.stalls).toBe(1);
    time.close();
  });

  it("lets a cancelled wait go without moving the clock", async () => {
    const { time, now } = simulated();
    time.wait(5_000).cancel();
    await time.wait(40);
    expect(now()).toBe(40);
  });
});

describe("Netlify's latencies, drawn", () => {
  it("draws the same from the same seed", () => {
    const a = seeded(49);
    const b = seeded(49);
    expect(Array.from({ length: 5 }, a)).toEqual(Array.from({ length: 5 }, b));
  });

  it("makes 1 Blobs operation in 500 a 503, 1 in 100 400 ms, and the rest 40 ms", () => {
    const random = seeded(1);
    const draws = Array.from({ length: 200_000 }, () => drawBlobs(random, netlifySpeed.blobs));
    const failed = draws.filter((draw) => draw.fails).length;
    const slow = draws.filter((draw) => draw.ms === 400).length;
    expect(failed / draws.length).toBeCloseTo(1 / 500, 3);
    expect(slow / draws.length).toBeCloseTo(1 / 100, 2);
    expect(draws.filter((draw) => draw.ms !== 400 && draw.ms !== 40)).toEqual([]);
    const sorted = draws.map((draw) => draw.ms).sort((x, y) => x - y);
    expect(sorted[draws.length / 2]).toBe(40);
  });

  it("makes 1 message in 50 take 3 s, and the rest 0.5 s", () => {
    const random = seeded(2);
    const draws = Array.from({ length: 100_000 }, () => drawMail(random, netlifySpeed.mail));
    expect(draws.filter((ms) => ms === 3_000).length / draws.length).toBeCloseTo(1 / 50, 2);
    expect(draws.filter((ms) => ms !== 3_000 && ms !== 500)).toEqual([]);
  });
});

describe("the Blobs stand-in slowed on the simulated clock", () => {
  let blobs: LocalBlobs;
  let undo = () => {};
  beforeAll(async () => {
    blobs = await startLocalBlobs();
  });
  afterEach(() => undo());
  afterAll(() => blobs.stop());

  it("answers 503s that @netlify/blobs retries, each attempt and each wait before it on the simulated clock", async () => {
    const { time, now } = simulated();
    const speed = { medianMs: 40, slowEvery: 0, slowMs: 400, failEvery: 2 };
    // The draws the run will make: attempts until one is not a 503, for a set and then a get.
    const draws = seeded(7);
    let attempts = 0;
    let failed = 0;
    for (let done = 0; done < 2;) {
      attempts++;
      if (drawBlobs(draws, speed).fails) failed++;
      else done++;
    }
    expect(failed).toBeGreaterThan(0);
    const slow = slowBlobs(time, blobs.url, speed, 7);
    undo = slow.undo;
    const store = blobs.store();
    await store.set("key", "value");
    expect(await store.get("key")).toBe("value");
    expect(slow.counts).toMatchObject({ operations: attempts, answered503: failed, backoffs: failed });
    // Under Jest (NODE_ENV=test) @netlify/blobs waits 1 ms before trying again; on the bench, 5 s.
    expect(now()).toBe(40 * attempts + failed);
  });

  it("holds the mail pace's waits on the simulated clock, a throttle's minute included, and no other timer", async () => {
    const { time, now } = simulated();
    const slow = slowBlobs(time, blobs.url, netlifySpeed.blobs, 1);
    undo = slow.undo;
    const began = performance.now();
    await paceWait(60_000);
    expect(now()).toBe(60_000);
    expect(performance.now() - began).toBeLessThan(5_000);
    // Any other timer is the process's own, in real time.
    let fired = false;
    setTimeout(() => (fired = true), 20);
    await until(() => fired, 1_000);
    expect(now()).toBe(60_000);
  });

  it("never answers a request of an invocation that was killed, nor moves the clock for it", async () => {
    const { time, now } = simulated();
    const slow = slowBlobs(time, blobs.url, { ...netlifySpeed.blobs, failEvery: 0, slowEvery: 0 }, 1);
    undo = slow.undo;
    const store = blobs.store();
    const state = { killed: false };
    let answered = false;
    void invocation.run(state, async () => {
      await store.get("key");
      state.killed = true;
      await store.get("key");
      answered = true;
    });
    await store.set("other", "value");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    // The invocation's first read and the other write, at once: 40 ms; the read after the kill, nothing.
    expect(now()).toBe(40);
  });
});

describe("the timers held on the simulated clock", () => {
  const frames = (name: string, file: string) =>
    `Error\n    at setTimeout (latency.ts:1:1)\n    at <anonymous> (${file}:2:2)\n    at ${name} (${file}:3:3)`;

  it("are told apart by the function that sets them, each up to the longest it sets", () => {
    expect(simulatedTimer(frames("fetchAndRetry", "blobs/main.js"), 5_000)).toBe(true);
    expect(simulatedTimer(frames("fetchAndRetry", "blobs/main.js"), 30_000)).toBe(false);
    expect(simulatedTimer(frames("afterRefusals", "blob-io.ts"), 100)).toBe(true);
    expect(simulatedTimer(frames("paceWait", "waitlist-drain.mjs"), 60_000)).toBe(true);
    expect(simulatedTimer(frames("sleep", "cli/netlify-access.ts"), 60_000)).toBe(true);
    expect(simulatedTimer(frames("sleep", "node_modules/other/index.js"), 1_000)).toBe(false);
    expect(simulatedTimer(frames("retry", "waitlist-drain.mjs"), 1_000)).toBe(false);
  });
});

describe("the mail stand-in on the simulated clock", () => {
  it("gives each message its own time: 20 sent at once, one of them 3 s, the others 0.5 s", async () => {
    const { time, now } = simulated();
    let message = 0;
    const smtp = await startSmtpServer(0, {
      onConnect: () => time.enter(),
      onClose: () => time.leave(),
      beforeData: async () => {
        time.leave();
        await time.wait(message++ === 0 ? 3_000 : 500);
        time.enter();
      },
    });
    const transport = nodemailer.createTransport(`${smtp.url}?pool=false`);
    try {
      // As the sweep sends: each message after its claim (a Blobs round trip), 20 at once.
      const took = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          await time.wait(80);
          const began = now();
          await transport.sendMail({ from: "a@example.com", to: `b${i}@example.com`, text: "hi" });
          return now() - began;
        }),
      );
      // Before, a connection counted from its greeting (after a reverse lookup in real time): the clock moved to the
      // slow message's 3 s while the others connected, and every message took 3 s.
      expect([...took].sort((x, y) => x - y)).toEqual([...Array.from({ length: 19 }, () => 500), 3_000]);
    } finally {
      transport.close();
      await smtp.close();
      time.close();
    }
  });
});
