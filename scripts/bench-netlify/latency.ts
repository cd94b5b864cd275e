// Netlify's speed on the bench's simulated clock. The stand-ins answer in a millisecond; Netlify Blobs is an HTTPS
// round trip from a function (tens of ms, now and then hundreds, now and then a 503 that @netlify/blobs retries after
// seconds), and a mail provider takes half a second a message. Sleeping for real would make a simulated month take
// hours, so each of those waits is held on the simulated clock instead: a discrete-event simulation. A wait is due at
// the simulated time it began plus its latency; when the process has nothing else to do (no request to a stand-in
// under way, nothing new for a few turns of the event loop), the earliest wait is let go and the clock moved to its
// due time. Concurrent waits overlap as they would on Netlify (16 reads at once with one slow one take 400 ms, not
// 16 × 40 + 360), sequential ones add up, and whatever reads Date (the functions' budgets, the 30 s limit) sees
// them as time that passed. Pure enough to test without a server: latency.test.ts.
import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";

/** What an operation costs at Netlify's speed (issue 49): Blobs from a function, and a mail provider. */
export interface Latencies {
  blobs: {
    /** Most operations. */
    medianMs: number;
    /** 1 operation in `slowEvery` takes `slowMs`. */
    slowEvery: number;
    slowMs: number;
    /** 1 in `failEvery` is answered 503, after `medianMs`, and the client tries again. */
    failEvery: number;
  };
  /** Each message's time; and each new connection's, its TLS handshake and AUTH (connectMs). */
  mail: { ms: number; slowEvery: number; slowMs: number; connectMs: number };
}

export const netlifySpeed: Latencies = {
  blobs: { medianMs: 40, slowEvery: 100, slowMs: 400, failEvery: 500 },
  mail: { ms: 500, slowEvery: 50, slowMs: 3_000, connectMs: 200 },
};

/** A seeded pseudo-random source in [0, 1) (mulberry32): the same run, the same draws. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One Blobs operation: how long it takes, and whether it is answered 503. */
export function drawBlobs(random: () => number, { medianMs, slowEvery, slowMs, failEvery }: Latencies["blobs"]) {
  const fails = failEvery > 0 && random() < 1 / failEvery;
  const slow = slowEvery > 0 && random() < 1 / slowEvery;
  return { ms: fails ? medianMs : slow ? slowMs : medianMs, fails };
}

/** One message to the mail provider: how long it takes. */
export function drawMail(random: () => number, { ms, slowEvery, slowMs }: Latencies["mail"]) {
  return slowEvery > 0 && random() < 1 / slowEvery ? slowMs : ms;
}

/** The stalls of every simulated clock of the process (SimulatedTime's totals): the run's, for the report. */
export const stalls = { count: 0 };

interface Wait {
  due: number;
  release: () => void;
  /** False once whatever waits is gone (an invocation past its limit): let go without moving the clock. */
  alive: () => boolean;
  cancelled: boolean;
}

interface Deadline {
  due: number;
  fire: () => void;
  done: boolean;
}

/**
 * The simulated clock's waits. `now` and `setNow` are the clock (the bench's fake Date); `quietTurns` how many turns
 * of the event loop with nothing new count as nothing else to do.
 */
export class SimulatedTime {
  private waits: Wait[] = [];
  private deadlines: Deadline[] = [];
  private busyCount = 0;
  private changed = false;
  private pumping = false;
  /**
   * Every wait let go so far; and the stalls: times nothing changed for `stallMs` of real time with no request under
   * way (something waited in real time, which the simulation does not see), or for `busyStallMs` with one (a request
   * that never ends), so the earliest wait or limit was let go anyway. Not 0 means a figure may be off: the JSON says
   * how many. A busy machine makes a request slow, not a stall: the threshold with one under way is long.
   */
  readonly totals = { waits: 0, stalls: 0 };
  private lastChange = performance.now();
  private readonly watchdog: ReturnType<typeof setInterval>;

  constructor(
    readonly now: () => number,
    private readonly setNow: (ms: number) => void,
    private readonly quietTurns = 2,
    private readonly stallMs = 2_000,
    private readonly busyStallMs = 60_000,
  ) {
    this.watchdog = setInterval(() => this.watch(), Math.min(500, stallMs));
    this.watchdog.unref();
  }

  /** Stops the watchdog. */
  close() {
    clearInterval(this.watchdog);
  }

  private watch() {
    if (performance.now() - this.lastChange < (this.busyCount > 0 ? this.busyStallMs : this.stallMs)) return;
    this.waits = this.waits.filter((wait) => !wait.cancelled);
    const limits = this.deadlines.filter((deadline) => !deadline.done);
    if (this.waits.length > 0) {
      this.totals.stalls++;
      stalls.count++;
      this.step();
    } else if (limits.length > 0) {
      this.totals.stalls++;
      stalls.count++;
      this.setNow(Math.max(this.now(), Math.min(...limits.map((deadline) => deadline.due))));
      this.tick();
    }
    this.lastChange = performance.now();
  }

  /**
   * Resolves once `ms` of simulated time have passed since `from` (now by default), in order with every other wait.
   * A wait whose `alive()` turns false is dropped: it never resolves, and never moves the clock.
   */
  wait(ms: number, { from = this.now(), alive = () => true }: { from?: number; alive?: () => boolean } = {}) {
    let cancel = () => {};
    const promise = new Promise<void>((resolve) => {
      const wait: Wait = { due: from + ms, release: resolve, alive, cancelled: false };
      this.waits.push(wait);
      cancel = () => void (wait.cancelled = true);
    });
    this.touch();
    return Object.assign(promise, { cancel });
  }

  /**
   * Fires `fire` once simulated time reaches `from + ms`, unless cancelled first: a limit, which never moves the clock
   * by itself (time passes for the waits, and for real time, which `tick()` checks).
   */
  deadline(ms: number, fire: () => void, { from = this.now() } = {}) {
    const deadline: Deadline = { due: from + ms, fire, done: false };
    this.deadlines.push(deadline);
    return () => void (deadline.done = true);
  }

  /** Real work under way (a request to a stand-in): no wait is let go until it is done. */
  async busy<T>(work: () => Promise<T>): Promise<T> {
    this.busyCount++;
    this.touch();
    try {
      return await work();
    } finally {
      this.busyCount--;
      this.touch();
    }
  }

  /** A count of work under way that `busy()` cannot wrap (an SMTP conversation, from its start to its end). */
  enter() {
    this.busyCount++;
    this.touch();
  }

  leave() {
    this.busyCount--;
    this.touch();
  }

  /** Fires the limits that time has reached (call it as real time passes, too). */
  tick() {
    const now = this.now();
    for (const deadline of this.deadlines) {
      if (!deadline.done && deadline.due <= now) {
        deadline.done = true;
        deadline.fire();
      }
    }
    this.deadlines = this.deadlines.filter((deadline) => !deadline.done);
  }

  /** Waits not yet let go. */
  get pending() {
    return this.waits.filter((wait) => !wait.cancelled).length;
  }

  private touch() {
    this.changed = true;
    this.lastChange = performance.now();
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => this.pump(0));
  }

  private pump(quiet: number) {
    this.waits = this.waits.filter((wait) => !wait.cancelled);
    if (this.busyCount > 0 || this.waits.length === 0) {
      this.pumping = false;
      return;
    }
    if (this.changed) {
      this.changed = false;
      setImmediate(() => this.pump(0));
      return;
    }
    if (quiet < this.quietTurns) {
      setImmediate(() => this.pump(quiet + 1));
      return;
    }
    this.step();
    this.changed = true;
    this.lastChange = performance.now();
    setImmediate(() => this.pump(0));
  }

  /** Lets go of the earliest wait, and of every other due by then; a limit due before it fires first. */
  private step() {
    const due = Math.min(...this.waits.map((wait) => wait.due));
    const limit = this.deadlines.filter((deadline) => !deadline.done && deadline.due <= due);
    if (limit.length > 0) {
      this.setNow(Math.max(this.now(), Math.min(...limit.map((deadline) => deadline.due))));
      this.tick();
      return;
    }
    const ready = this.waits.filter((wait) => wait.due <= due);
    this.waits = this.waits.filter((wait) => wait.due > due);
    const living = ready.filter((wait) => wait.alive());
    if (living.length > 0) this.setNow(Math.max(this.now(), due));
    for (const wait of living) {
      this.totals.waits++;
      wait.release();
    }
    this.tick();
  }
}

/** The invocation a piece of work belongs to (a function's, run by the bench): once killed, its waits are dropped. */
export const invocation = new AsyncLocalStorage<{ killed: boolean }>();

/** Whether the invocation of the caller (if any) still runs. */
const living = () => {
  const current = invocation.getStore();
  return () => !current?.killed;
};

/** Bodiless statuses, which a Response refuses a body for. */
const bodiless = new Set([101, 204, 205, 304]);

/**
 * The timers of the process that are waits on the simulated clock, told apart by the function that sets them, each
 * up to the longest it sets: @netlify/blobs' wait before trying a request again (fetchAndRetry), the store's backoff
 * between compare-and-swap attempts (afterRefusals), the mail pace's waits for a start or through a throttle's hold,
 * up to a minute (paceWait: waitlist/mail/pace.ts), and the founders' commands' wait for the next minute of Netlify's
 * API (the sleep of cli/netlify-access.ts's waitingFetch), up to a minute too.
 */
const simulatedTimers = [
  { setBy: /fetchAndRetry|afterRefusals/, atMostMs: 10_000 },
  { setBy: /paceWait/, atMostMs: 3_600_000 },
  { setBy: /at sleep \(.*netlify-access/, atMostMs: 120_000 },
];

/** Whether a timer of `ms` set from `stack` is a wait on the simulated clock (simulatedTimers). */
export const simulatedTimer = (stack: string, ms: number) =>
  simulatedTimers.some(({ setBy, atMostMs }) => ms <= atMostMs && setBy.test(stack));

/**
 * Slows this process's requests to the Blobs stand-in at `blobsUrl` (every client in the process, the functions'
 * bundles included, uses the global fetch) to Netlify's speed, on `time`: each a draw of `latencies.blobs`, 1 in
 * `failEvery` answered 503 without reaching the stand-in, so @netlify/blobs' own retry runs. Its wait before trying
 * again (5 s without a rate-limit header: fetchAndRetry in @netlify/blobs), the store's own backoff between
 * compare-and-swap attempts (afterRefusals), and the other waits simulatedTimers names, are simulated waits too: they
 * are timers of the process, told apart by the function that sets them. A request of a killed invocation is never answered, as on Netlify, where it stopped.
 * Returns the counts, and how to undo it.
 */
export function slowBlobs(time: SimulatedTime, blobsUrl: string, latencies: Latencies["blobs"], seed: number) {
  const random = seeded(seed);
  const counts = { operations: 0, answered503: 0, slow: 0, backoffs: 0 };
  const realFetch = globalThis.fetch;
  const realSetTimeout = globalThis.setTimeout;
  const realClearTimeout = globalThis.clearTimeout;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(blobsUrl)) return realFetch(input, init);
    const alive = living();
    if (!alive()) return new Promise<Response>(() => {});
    const from = time.now();
    const { ms, fails } = drawBlobs(random, latencies);
    counts.operations++;
    if (ms > latencies.medianMs) counts.slow++;
    let answer: Response;
    if (fails) {
      counts.answered503++;
      answer = new Response("Service Unavailable", { status: 503 });
    } else {
      answer = await time.busy(async () => {
        const real = await realFetch(input, init);
        const body = await real.arrayBuffer();
        const { status, statusText, headers } = real;
        return new Response(bodiless.has(status) ? null : body, { status, statusText, headers });
      });
    }
    await time.wait(ms, { from, alive });
    return answer;
  };
  const simulated = new WeakSet<object>();
  const cancels = new WeakMap<object, () => void>();
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (typeof ms === "number" && ms > 0 && simulatedTimer(new Error().stack ?? "", ms)) {
      counts.backoffs++;
      const wait = time.wait(ms, { alive: living() });
      void wait.then(() => callback(...args));
      const handle = { ref: () => handle, unref: () => handle, hasRef: () => false, refresh: () => handle };
      simulated.add(handle);
      cancels.set(handle, wait.cancel);
      return handle;
    }
    return realSetTimeout(callback, ms, ...args);
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    if (typeof handle === "object" && handle !== null && simulated.has(handle)) cancels.get(handle)?.();
    else realClearTimeout(handle);
  }) as typeof clearTimeout;
  return {
    counts,
    undo() {
      globalThis.fetch = realFetch;
      globalThis.setTimeout = realSetTimeout;
      globalThis.clearTimeout = realClearTimeout;
    },
  };
}
