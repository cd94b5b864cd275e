import { checkListedEmail } from "../email-address";
import type { FingerprintKey } from "../fingerprints";
import { leaverDigest } from "../leavers";
import { mailDay } from "../mail/mailbox";
import { redactAddresses } from "../mail/redact";
import { suppressionRetentionMs } from "../signup-life/rules";
import type { FullStore } from "../stores/store";
import { suppress, suppressedUntilBy } from "../suppressions";
import type { MailEvent } from "./events";

/*
 * What a verified event does, the one part of mail-events/ that touches the store. A bounce for good ends the mail to
 * the address: an unconfirmed signup is refused for good, a member is kept but undeliverable (signup-life's bounce). A
 * complaint is the person saying they want none of it: they leave at once, as by their own leave link. Either way,
 * listed or not (someone who left by one-click and then pressed "spam" is not mailed when anyone signs them up again),
 * the address a bounce names, or the mailbox of a complaint, is held for signup-life's suppressionRetentionMs
 * (suppressions.ts), and the day's figure counted for the founders' rates. A provider's report that it did not send
 * because the address is on its own suppression list is no new bounce: it is held if it was not, and not counted. A
 * temporary bounce only says one message did not arrive (the provider retried it): nothing changes. Nothing here logs
 * or keeps an address.
 */

/** The once() notes of the providers' events: `mail-event-<provider>-<id>`. */
export const mailEventOncePrefix = "mail-event-";

/**
 * How long an event's id is kept, for a retry or a captured request sent again to change nothing: the days the event
 * holds its address for. A provider retries within hours (SNS within its hour, Svix within a few days), and an event
 * older than this is taken as nothing, so none is acted on again once its id is forgotten (prune.ts, the day's pass).
 */
export const mailEventIdRetentionMs = suppressionRetentionMs;

export interface ActingOptions {
  store: Pick<
    FullStore,
    "once" | "forgetOnce" | "markBounced" | "remove" | "suppress" | "suppressedUntil" | "countMail"
  >;
  /** The key of the fingerprints that outlive an entry: the store's own, as the senders have it (fingerprints.ts). */
  fingerprintKey: FingerprintKey;
  /** Deletes the copies of a removed address's mail that the mailer keeps (the outbox), as a leave does. */
  forget?: (email: string) => void;
  clock?: () => Date;
}

/** What one event came to: whether it changed anything, and one line for the log, naming nobody. */
export interface Acted {
  changed: boolean;
  line: string;
}

const nothing = (line: string): Acted => ({ changed: false, line });

export async function actOnMailEvent(event: MailEvent, options: ActingOptions): Promise<Acted> {
  const { store } = options;
  const what = `${event.provider} ${event.kind === "bounce" ? (event.permanent ? "bounce for good" : "temporary bounce") : "complaint"}`;
  // The provider retries a message that bounced for now, and reports again if it fails for good.
  if (!event.permanent) return nothing(`a ${what}: nothing to do`);
  const address = checkListedEmail(event.address);
  if (!address.ok) return nothing(`a ${what} for something the list could not hold as an address: nothing to do`);
  const age = (options.clock?.() ?? new Date()).getTime() - Date.parse(event.at);
  if (age > mailEventIdRetentionMs) {
    return nothing(
      `a ${what} older than the ${mailEventIdRetentionMs / 86_400_000} days its id is kept: nothing to do`,
    );
  }
  // Once per event, before anything changes: a provider's retry, or a captured event sent again, changes nothing, and
  // a stale complaint cannot take off a signup made anew since it was first acted on.
  const once = `${mailEventOncePrefix}${event.provider}-${event.id}`;
  if (!(await store.once(once))) return nothing(`a ${what} already acted on (the same id): nothing to do`);
  try {
    return await act(event, address, what, options);
  } catch (error) {
    // The change failed part way (the store busy, say): the id is given back, so that the provider's retry, after the
    // caller's 500, acts on it again. Each step is one a retry may take twice. Were the store to refuse this too, the
    // event would be lost as before: the error the provider is told of is the change's.
    await store.forgetOnce(once).catch(() => undefined);
    throw error;
  }
}

async function act(
  event: MailEvent,
  { email, key }: { email: string; key: string },
  what: string,
  { store, fingerprintKey, forget, clock = () => new Date() }: ActingOptions,
): Promise<Acted> {
  const now = clock();
  // On the provider's own list already: held, if it is here, with its days as they are.
  const heldUntil = event.alreadySuppressed ? await suppressedUntilBy(store, fingerprintKey, key, now) : undefined;
  let done: string;
  if (event.kind === "bounce") {
    // The provider's words may quote the address: kept without it, as a mail server's are (mail/redact.ts).
    const words = redactAddresses(event.words ?? `${event.provider} reported it`, email);
    const state = await store.markBounced(key, `bounced for good: ${words}`, now);
    done =
      state === undefined
        ? "not on the list"
        : state === "undeliverable"
          ? "the member is kept, never mailed again"
          : "its confirmation is refused for good";
  } else {
    const removed = await store.remove(key, "complaint", now, leaverDigest(fingerprintKey, key));
    // "We delete your entry at once", as a leave: the copies of its mail the mailer keeps too.
    if (removed) forget?.(removed.email);
    done = removed ? "the person is removed, as a leave" : "not on the list";
  }
  const held = event.kind === "bounce" ? "the address" : "its mailbox";
  if (heldUntil) {
    return {
      changed: done !== "not on the list",
      line: `a ${what}, on ${event.provider}'s own suppression list: ${done}; ${held} was held already, until ${heldUntil.slice(0, 10)}`,
    };
  }
  const until = new Date(now.getTime() + suppressionRetentionMs);
  await suppress(store, fingerprintKey, key, event.kind, until);
  if (!event.alreadySuppressed) {
    await store.countMail(mailDay(new Date(event.at)), event.kind === "bounce" ? { bounced: 1 } : { complained: 1 });
  }
  const listed = event.alreadySuppressed ? `, on ${event.provider}'s own suppression list` : "";
  return {
    changed: true,
    line: `a ${what}${listed}: ${done}; ${held} is not mailed until ${until.toISOString().slice(0, 10)}`,
  };
}
