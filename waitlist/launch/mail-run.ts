import pLimit from "p-limit";
import { RateLimiterMemory, RateLimiterQueue } from "rate-limiter-flexible";
import { heldWords, type MailPace } from "../mail/pace";
import { maskedLine, type Addressee, type Lane, type Sender } from "../mail/sender";
import type { NotMailed } from "../signup-life/rules";

/*
 * A founder's run of one message to many (a wave's "You're in", a policy's announcement): each person through the one
 * sender (mail/sender.ts), over as many at once as the provider's connections, slower still when the founder says so.
 * The run's first message goes alone and tries through a hold of the server down (a founder runs it having put the
 * server right: sent, it ends the hold). It stops taking more when the founder stops it, when the provider asks every
 * sender to wait past a throttle's moment (a quota, the sending refused, the server down), or when the store fails;
 * whoever was not reached stays owed for the next run, and nobody is mailed twice.
 */

export interface RunOutcome {
  sent: number;
  /** Not the run's to send: they left, signed up anew, or another run took them, since the list was read. */
  gone: number;
  /** Not sent by the rule (signup-life's whyNotMailed, and the suppressions), by reason. */
  notMailed: Partial<Record<NotMailed | "gate", number>>;
  /** Refused for good by the mail server: a masked line each. */
  refused: string[];
  /** Failed for now, still owed: a masked line each. */
  failed: string[];
  /** May have gone (the connection dropped as it was sent): recorded so, and never sent again. */
  unknown: number;
  /** Stopped before its end by the founder or by the reason in `halted`. */
  stopped: boolean;
  /** Why the run stopped before its end, other than the founder: the sending's failure, the provider's, or the store's. */
  halted?: string;
}

export interface RunOptions {
  pace: MailPace;
  /** Slower still than the provider's pace, when the founder asks (--per-second); none for the outbox. */
  perSecond?: number;
  /** The founder stopped the run (Ctrl-C): no more are started. */
  stopped?: () => boolean;
}

export async function mailEach<P extends Addressee>(
  sender: Sender,
  lane: Lane<P>,
  people: readonly P[],
  { pace, perSecond, stopped = () => false }: RunOptions,
): Promise<RunOutcome> {
  const outcome: RunOutcome = { sent: 0, gone: 0, notMailed: {}, refused: [], failed: [], unknown: 0, stopped: false };
  const cap = perSecond ? new RateLimiterQueue(new RateLimiterMemory({ points: perSecond, duration: 1 })) : undefined;
  const halt = (why: string) => {
    outcome.halted ??= why;
    outcome.stopped = true;
  };
  const over = () => outcome.stopped || stopped();
  let probed = false;
  async function one(person: P) {
    await cap?.removeTokens(1);
    if (over()) return;
    const probe = !probed;
    probed = true;
    const done = await sender.send(lane, person, { probe, stopped: over });
    if (done.outcome === "sent") outcome.sent++;
    else if (done.outcome === "not-ours") outcome.gone++;
    else if (done.outcome === "not-mailed") outcome.notMailed[done.why] = (outcome.notMailed[done.why] ?? 0) + 1;
    else if (done.outcome === "refused") outcome.refused.push(maskedLine(person, done.reason));
    else if (done.outcome === "retry") outcome.failed.push(maskedLine(person, done.reason));
    else if (done.outcome === "unknown") outcome.unknown++;
    else if (done.outcome === "held") {
      // A throttle's moment was waited out by the sender; anything longer holds every sender: the run stops.
      halt(
        done.replied && done.hold === "down"
          ? `the mail server refused the sending (${done.reason})`
          : heldWords({ go: false, reason: done.hold, until: done.until }),
      );
    }
  }
  const caught = (person: P) =>
    one(person).catch((error: unknown) => halt(`the store failed (${(error as Error).message})`));
  // The probe alone, then the rest over every connection together.
  if (people.length > 0) await caught(people[0]!);
  const limit = pLimit(Math.min(pace.limits.connections, 32));
  await Promise.all(people.slice(1).map((person) => limit(() => caught(person))));
  if (stopped()) outcome.stopped = true;
  return outcome;
}

/** How many a run left unsent and still owed: all but those it sent, refused, or found gone or not to be mailed. */
export const stillOwed = (outcome: RunOutcome, people: number) =>
  people -
  outcome.sent -
  outcome.gone -
  outcome.unknown -
  outcome.refused.length -
  Object.values(outcome.notMailed).reduce((sum, n) => sum + n, 0);
