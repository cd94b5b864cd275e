import { AsyncLocalStorage } from "node:async_hooks";
import type { Store } from "@netlify/blobs";

/*
 * A scheduled run's hard stop. Each of its duties starts no new batch past its point in the run (sweep.ts), but a
 * batch under way waits for its slowest round trip at every step, and a 503 that @netlify/blobs retries adds 5 s to
 * the step it falls in: a batch begun just in time could end past Netlify's 30 s, which stops the run wherever it
 * is. The hard stop ends it earlier, the same way: past it, the Blobs store of the run's pruning and ledger starts no
 * operation, so the duty ends as if the run had died there, which every step of theirs leaves for the next run to
 * finish, and the run ends within its 30 s (an operation under way may still take a retry's 5 s). The sending of
 * mail is never stopped so: an e-mail sent but not marked sent would be sent again.
 */

/** Thrown for a Blobs operation asked for past the hard stop of the duty that asks. */
export class PastRunLimit extends Error {}

interface Limit {
  stopAt: number;
  clock: () => number;
}

const limits = new AsyncLocalStorage<Limit>();

/**
 * `work`, whose Blobs operations through limitedStore() start none past `stopAt` on `clock`: its result, or
 * "stopped" if it reached the stop. Work of it still under way (a step's other operations) stays stopped after.
 */
export async function untilStop<T>(
  stopAt: number,
  clock: () => number,
  work: () => Promise<T>,
): Promise<T | "stopped"> {
  try {
    return await limits.run({ stopAt, clock }, work);
  } catch (error) {
    if (error instanceof PastRunLimit) return "stopped";
    throw error;
  }
}

/** `store`, refusing every operation asked for past the hard stop of the duty that asks (none outside one). */
export function limitedStore(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const limit = limits.getStore();
        if (limit && limit.clock() > limit.stopAt) {
          throw new PastRunLimit(`past the run's hard stop: no ${String(property)} of the Blobs store`);
        }
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
