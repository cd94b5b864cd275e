import { confirmationMessage } from "./confirmation-message";
import { maskEmail } from "./email";
import type { Mailer } from "./mailer";
import type { WaitlistStore } from "./store";

export interface ConfirmationOptions {
  store: WaitlistStore;
  mailer: Mailer;
  /** Waits between attempts after a failure; after the last, the address stays pending. */
  retryDelaysMs?: readonly number[];
  log?: (line: string) => void;
}

export interface Owed {
  email: string;
  emailKey: string;
}

export const defaultRetryDelaysMs = [5_000, 30_000, 120_000] as const;
const maxConcurrentSends = 4;

/**
 * Sends each stored address exactly one confirmation. The signup is stored
 * and answered first; sending happens afterwards, retries with backoff, and
 * leaves the address pending in the store (for resend-pending and the next
 * start) when the mail server keeps failing.
 */
export function createConfirmations({
  store,
  mailer,
  retryDelaysMs = defaultRetryDelaysMs,
  log = (line) => console.error(line),
}: ConfirmationOptions) {
  const inFlight = new Set<Promise<void>>();

  /** One attempt. Resolves true when this call sent it, false when it was not this call's to send. */
  async function deliver(owed: Owed): Promise<boolean> {
    if (!store.claimConfirmation(owed.emailKey)) return false;
    try {
      await mailer.send(confirmationMessage(owed.email));
    } catch (error) {
      const reason = (error as Error).message.split("\n")[0] ?? "unknown error";
      store.releaseConfirmation(owed.emailKey, reason);
      throw new Error(reason);
    }
    store.markConfirmationSent(owed.emailKey);
    return true;
  }

  // At most a few messages in flight: a burst of signups must neither open a
  // connection per signup to the mail server nor starve the receiver that
  // acknowledges them (the rest wait here, in order).
  let active = 0;
  let closed = false;
  const waiting: ((granted: boolean) => void)[] = [];
  /** Runs `work` in a free slot; undefined, without running it, once the sender is closed. */
  async function withSlot<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (closed) return undefined;
    if (active < maxConcurrentSends) active++;
    // A finished send hands its slot over; close() turns the waiters away.
    else if (!(await new Promise<boolean>((resolve) => waiting.push(resolve)))) return undefined;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next(true);
      else active--;
    }
  }

  function track(work: Promise<void>): void {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  /** Queues the confirmation of a newly stored address; never throws, never delays the caller. */
  function sendSoon(owed: Owed): void {
    track(
      (async () => {
        await new Promise((resolve) => setImmediate(resolve));
        for (let attempt = 0; ; attempt++) {
          try {
            // Turned away by close(): the address stays pending for the next start.
            await withSlot(() => deliver(owed));
            return;
          } catch (error) {
            const delay = retryDelaysMs[attempt];
            if (delay === undefined) {
              log(
                `confirmation to ${maskEmail(owed.email)} failed ${attempt + 1} times (${(error as Error).message}); it stays pending: npm run waitlist -- resend-pending`,
              );
              return;
            }
            log(
              `confirmation to ${maskEmail(owed.email)} failed (${(error as Error).message}); retrying in ${delay / 1000} s`,
            );
            await new Promise((resolve) => setTimeout(resolve, delay).unref());
            if (closed) return;
          }
        }
      })(),
    );
  }

  /** One attempt for every address still owed a confirmation. */
  async function resendPending(): Promise<{ sent: number; failed: { email: string; reason: string }[] }> {
    let sent = 0;
    const failed: { email: string; reason: string }[] = [];
    for (const owed of store.pendingConfirmations()) {
      try {
        if (await deliver(owed)) sent++;
      } catch (error) {
        failed.push({ email: owed.email, reason: (error as Error).message });
      }
    }
    return { sent, failed };
  }

  /** Resolves when every queued confirmation has been sent or given up on. */
  async function idle(): Promise<void> {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  }

  /**
   * For shutdown: lets the sends under way finish and starts no more; what is
   * still queued stays pending in the store and goes out on the next start.
   */
  async function close(): Promise<void> {
    closed = true;
    for (const turnAway of waiting.splice(0)) turnAway(false);
    await idle();
  }

  return { sendSoon, resendPending, idle, close };
}

export type Confirmations = ReturnType<typeof createConfirmations>;
