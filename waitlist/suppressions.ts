import { keyedDigest } from "./fingerprints";
import { mailboxOf } from "./mail/mailbox";
import type { MailBookkeeping } from "./stores/store";

/*
 * A mailbox the mail must not reach: its mail bounced for good, or its person marked it as spam (mail-events/). What
 * is kept is a keyed fingerprint of the mailbox (fingerprints.ts), never the address, for signup-life's
 * suppressionRetentionMs: it outlives the signup, so a new signup of any spelling of that mailbox is answered as any
 * other and not mailed until then. The events write it (mail-events/act.ts); every sender reads it before it sends
 * (mail/confirmations.ts, the CLI's let-in and announce-policy-change).
 */

/** The fingerprint kept of an address's mailbox (its key, email-address.ts): `anna+x@` and `anna@` are one. */
export const suppressionFingerprint = (secret: string, emailKey: string) =>
  keyedDigest(secret, "suppressed", mailboxOf(emailKey));

/** Until when the mail must not reach the mailbox of `emailKey`, if it still must not at `at`; by key. */
export const suppressedUntil = (
  store: Pick<MailBookkeeping, "suppressedUntil">,
  secret: string,
  emailKey: string,
  at: Date,
): Promise<string | undefined> => store.suppressedUntil(suppressionFingerprint(secret, emailKey), at);
