import { createHmac, hkdfSync } from "node:crypto";

/*
 * Where the waitlist keeps a trace of an address that is not the address itself (a mailbox's count of the day's
 * e-mails, the fingerprint of someone who left, for the launch mailing tool), it is a keyed digest: an HMAC under a
 * key derived from the site's secret (WAITLIST_SECRET, or the one the store keeps). Without the key, a list of
 * addresses cannot be hashed to find whose it is, as a plain SHA-256 can.
 */

const keys = new Map<string, Buffer>();

/** The digests' key, derived from the secret (HKDF-SHA256) for this use only: never the secret, nor the links' key. */
function digestKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "", "tandem waitlist digest v1", 32));
    keys.set(secret, key);
  }
  return key;
}

/** HMAC-SHA256 of `value` for `purpose` ("mailbox", "leaver"), in hex, cut to 32 characters (128 bits). */
export function keyedDigest(secret: string, purpose: string, value: string): string {
  return createHmac("sha256", digestKey(secret)).update(`${purpose}\n${value}`, "utf8").digest("hex").slice(0, 32);
}
