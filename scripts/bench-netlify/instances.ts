// A function's instances, as Netlify (AWS Lambda) runs them: one call at a time on each, a call given to an idle
// instance when there is one, and a new one started cold when every instance is busy, so a burst of calls runs on as
// many instances as calls under way. Each instance is the bundle imported anew: its own module state (its waitlist,
// its mailer, its pace and its leases), as each Lambda execution environment has. An instance whose call ended waits
// warm for the next; one whose call was killed at its limit is never given another (Lambda resets it).
// Pure of the bench's servers, tested in instances.test.ts.

export interface Instance<F> {
  /** The function's handler in this instance's module. */
  handler: F;
  /** Its number among the function's instances, from 0: the query of its import. */
  number: number;
  /** The pool's count of calls when this instance last took one. */
  lastCall: number;
}

/**
 * The instances of one function. `start(n)` starts instance `n` cold (imports its bundle with `?instance=n`); `cold`
 * wraps that start (the bench holds its simulated clock meanwhile: the import's real time is no time of Netlify's).
 */
export function instancePool<F>(
  start: (number: number) => Promise<F>,
  cold: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
) {
  const idle: Instance<F>[] = [];
  let made = 0;
  let calls = 0;
  const all: Instance<F>[] = [];
  /** An instance for one call: the one idle the shortest (warm, as Lambda prefers), or a new one. */
  async function take(): Promise<Instance<F>> {
    calls++;
    let instance = idle.pop();
    if (!instance) {
      const number = made++;
      instance = { handler: await cold(() => start(number)), number, lastCall: 0 };
      all.push(instance);
    }
    instance.lastCall = calls;
    return instance;
  }
  return {
    take,
    /** The call on `instance` ended: it waits warm for the next. */
    release: (instance: Instance<F>) => void idle.push(instance),
    /** Instances started so far. */
    made: () => made,
    /** A mark of the calls so far, for `usedSince`. */
    mark: () => calls,
    /** How many instances took a call after `mark`: those a burst ran on. */
    usedSince: (mark: number) => all.filter((instance) => instance.lastCall > mark).length,
  };
}

export type InstancePool<F> = ReturnType<typeof instancePool<F>>;

/**
 * One call on an instance of `pool`, which it holds from the call's start to the end of `whole` (its reply and its
 * waitUntil work: they keep a Lambda instance busy too). An instance whose call was `killed` at its limit is never
 * given back: Lambda resets it, and its waits, never answered, would hold every later call on it.
 */
export async function onInstance<F, T>(
  pool: InstancePool<F>,
  whole: (handler: F) => Promise<T>,
  killed: () => boolean = () => false,
): Promise<T> {
  const instance = await pool.take();
  try {
    return await whole(instance.handler);
  } finally {
    if (!killed()) pool.release(instance);
  }
}
