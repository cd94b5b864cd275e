import { checkListedEmail } from "../email-address";
import { leaverDigest } from "../leavers";
import { mailDay } from "../mail/mailbox";
import { redactAddresses } from "../mail/redact";
import { suppressionRetentionMs } from "../signup-life/rules";
import type { FullStore } from "../stores/store";
import { suppressionFingerprint } from "../suppressions";
import type { MailEvent } from "./events";

/*
 * What a verified event does, the one part of mail-events/ that touches the store. A bounce for good ends the mail to
 * the address: an unconfirmed signup is refused for good, a member is kept but undeliverable (signup-life's bounce). A
 * complaint is the person saying they want none of it: they leave at once, as by their own leave link. Either way the
 * mailbox's fingerprint is kept for signup-life's suppressionRetentionMs (suppressions.ts), so that a new signup of it
 * is not mailed, and the day's figure counted for the founders' rates. A temporary bounce only says one message did not
 * arrive (the provider retried it): nothing changes. Nothing here logs or keeps an address.
 */

export interface ActingOptions {
  store: Pick<FullStore, "once" | "markBounced" | "remove" | "suppress" | "countMail">;
  /** The secret the keyed fingerprints are made with: the links' own, as the senders have it (create-waitlist.ts). */
  secret: string;
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
export async function actOnMailEvent(
  event: MailEvent,
  { store, secret, forget, clock = () => new Date() }: ActingOptions,
): Promise<Acted> {
  const what = `${event.provider} ${event.kind === "bounce" ? (event.permanent ? "bounce for good" : "temporary bounce") : "complaint"}`;
  // The provider retries a message that bounced for now, and reports again if it fails for good.
  if (!event.permanent) return nothing(`a ${what}: nothing to do`);
  const address = checkListedEmail(event.address);
  if (!address.ok) return nothing(`a ${what} for something the list could not hold as an address: nothing to do`);
  // Once per event, before anything changes: a provider's retry, or a captured event sent again, changes nothing, and
  // a stale complaint cannot take off a signup made anew since it was first acted on.
  if (!(await store.once(`mail-event-${event.provider}-${event.id}`))) {
    return nothing(`a ${what} already acted on (the same id): nothing to do`);
  }
  const now = clock();
  const { key } = address;
  let done: string;
  if (event.kind === "bounce") {
    // The provider's words may quote the address: kept without it, as a mail server's are (mail/redact.ts).
    const words = redactAddresses(event.words ?? `${event.provider} reported it`, address.email);
    const state = await store.markBounced(key, `bounced for good: ${words}`, now);
    if (state === undefined) return nothing(`a ${what} for an address not on the list: nothing changed`);
    done =
      state === "undeliverable" ? "the member is kept, never mailed again" : "its confirmation is refused for good";
  } else {
    const removed = await store.remove(key, "complaint", now, leaverDigest(secret, key));
    if (removed === undefined) return nothing(`a ${what} for an address not on the list: nothing changed`);
    // "We delete your entry at once", as a leave: the copies of its mail the mailer keeps too.
    forget?.(removed.email);
    done = "the person is removed, as a leave";
  }
  const until = new Date(now.getTime() + suppressionRetentionMs);
  await store.suppress(suppressionFingerprint(secret, key), until, event.kind);
  await store.countMail(mailDay(new Date(event.at)), event.kind === "bounce" ? { bounced: 1 } : { complained: 1 });
  return {
    changed: true,
    line: `a ${what}: ${done}; its mailbox is not mailed until ${until.toISOString().slice(0, 10)}`,
  };
}
