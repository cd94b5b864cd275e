import {
  fingerprint,
  fingerprintKeyFrom,
  fingerprintKeyOf,
  type FingerprintKey,
  type KeepsSecrets,
} from "./fingerprints";
import { mailboxOf } from "./mail/mailbox";
import type { SuppressionReason } from "./signup-life/types";
import type { MailBookkeeping } from "./stores/store";

/*
 * An address the mail must not reach: its mail bounced for good, or its person marked it as spam (mail-events/). What
 * is kept is a keyed fingerprint (fingerprints.ts, under the store's own key), never the address, for signup-life's
 * suppressionRetentionMs: it outlives the signup, so a new signup is answered as any other and not mailed until then.
 * A bounce is about an address: the one address it names is held (`owner+x@` bounced says nothing of `owner@`, and a
 * stranger who signed up `owner+x@` where the domain has no plus-addressing must not silence `owner@`). A complaint is
 * about a person: their whole mailbox is held, every spelling of it. Both are kept under the mailbox's fingerprint, so
 * a sender's check is one read by key. The events write them (mail-events/act.ts); every sender reads them before it
 * sends (mail/confirmations.ts, the CLI's let-in and announce-policy-change).
 */

/** The fingerprints of an address (its key, email-address.ts): its mailbox's (`anna+x@` and `anna@` are one), its own. */
export const suppressionFingerprints = (key: FingerprintKey, emailKey: string) => ({
  mailbox: fingerprint(key, "suppressed", mailboxOf(emailKey)),
  address: fingerprint(key, "suppressed address", emailKey),
});

/**
 * The mailbox's fingerprint under the key a store makes from `secret` on first use (fingerprints.ts): what a mailbox
 * held whole is kept under.
 */
export const suppressionFingerprint = (secret: string, emailKey: string) =>
  suppressionFingerprints(fingerprintKeyFrom(secret), emailKey).mailbox;

/** Holds what `why` is about until `until`: the address of `emailKey` after a bounce, its mailbox after a complaint. */
export async function suppress(
  store: Pick<MailBookkeeping, "suppress">,
  key: FingerprintKey,
  emailKey: string,
  why: SuppressionReason,
  until: Date,
): Promise<void> {
  const { mailbox, address } = suppressionFingerprints(key, emailKey);
  await store.suppress(mailbox, until, why, why === "bounce" ? address : undefined);
}

/** Until when the mail must not reach `emailKey` (its address held, or its mailbox), if it still must not at `at`. */
export async function suppressedUntilBy(
  store: Pick<MailBookkeeping, "suppressedUntil">,
  key: FingerprintKey,
  emailKey: string,
  at: Date,
): Promise<string | undefined> {
  const { mailbox, address } = suppressionFingerprints(key, emailKey);
  return store.suppressedUntil(mailbox, at, address);
}

/**
 * As suppressedUntilBy, for a sender that has the links' secret: the store's fingerprint key is read once per store
 * (fingerprintKeyOf), so a check is one read by key.
 */
export const suppressedUntil = async (
  store: Pick<MailBookkeeping, "suppressedUntil"> & KeepsSecrets,
  secret: string,
  emailKey: string,
  at: Date,
): Promise<string | undefined> => suppressedUntilBy(store, await fingerprintKeyOf(store, secret), emailKey, at);
