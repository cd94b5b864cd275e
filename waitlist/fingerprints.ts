import { createHmac } from "node:crypto";
import type { StoreSecretName } from "./stores/store";
import { derivedKey } from "./tokens";

/*
 * Where the waitlist keeps a trace of an address that is not the address itself (a mailbox's count of the day's
 * e-mails, the fingerprint of someone who left, for the launch mailing tool), it is a keyed digest: an HMAC under a
 * key derived from the site's secret (WAITLIST_SECRET, or the one the store keeps). Without the key, a list of
 * addresses cannot be hashed to find whose it is, as a plain SHA-256 can.
 *
 * The fingerprints that outlive an entry (a mailbox held after a bounce or a complaint, suppressions.ts; someone who
 * left, leavers.ts) are made under a key of their own that the store keeps (fingerprintKeyOf), so that a rotation of
 * WAITLIST_SECRET, which ends every link mailed before, forgets none of them.
 */

/** The digests' key, derived from the secret for this use only: never the secret, nor the links' key. */
const digestKey = (secret: string) => derivedKey(secret, "tandem waitlist digest v1");

const digestUnder = (key: Buffer, purpose: string, value: string) =>
  createHmac("sha256", key).update(`${purpose}\n${value}`, "utf8").digest("hex").slice(0, 32);

/** HMAC-SHA256 of `value` for `purpose` ("mailbox", "leaver"), in hex, cut to 32 characters (128 bits). */
export function keyedDigest(secret: string, purpose: string, value: string): string {
  return digestUnder(digestKey(secret), purpose, value);
}

/** The key of the fingerprints that outlive an entry: the store's own (fingerprintKeyOf), never a secret's string. */
export interface FingerprintKey {
  readonly bytes: Buffer;
}

/**
 * The key `secret` would have made: a store makes its fingerprint key so on first use, from the links' secret of that
 * day, so that every fingerprint made under that secret before the store kept a key of its own is one under it.
 */
export const fingerprintKeyFrom = (secret: string): FingerprintKey => ({ bytes: digestKey(secret) });

/** HMAC-SHA256 of `value` for `purpose` under the fingerprint key, as keyedDigest. */
export const fingerprint = (key: FingerprintKey, purpose: string, value: string) =>
  digestUnder(key.bytes, purpose, value);

/** What fingerprintKeyOf needs of a store. */
export interface KeepsSecrets {
  secret(name: StoreSecretName, make: () => string): Promise<string>;
}

const keptKeys = new WeakMap<KeepsSecrets, Promise<FingerprintKey>>();

/**
 * The store's fingerprint key (its secret "fingerprint": settings/fingerprint-secret on Netlify Blobs, the settings
 * row fingerprint_secret in SQL), read once per store object and kept: a request asks it of memory. Made on first use
 * from `linkSecret`, the secret the links are sealed with (fingerprintKeyFrom), and the same ever after, whatever
 * WAITLIST_SECRET becomes.
 */
export function fingerprintKeyOf(store: KeepsSecrets, linkSecret: string): Promise<FingerprintKey> {
  let key = keptKeys.get(store);
  if (!key) {
    key = store
      .secret("fingerprint", () => fingerprintKeyFrom(linkSecret).bytes.toString("hex"))
      .then((hex) => ({ bytes: Buffer.from(hex, "hex") }));
    keptKeys.set(store, key);
    // A store that failed to answer is asked again next time.
    key.catch(() => keptKeys.delete(store));
  }
  return key;
}
