import { createHmac } from "node:crypto";
import { derivedKey } from "./tokens";

/*
 * Where the waitlist keeps a trace of an address that is not the address itself (a mailbox's count of the day's
 * e-mails, the fingerprint of someone who left, for the launch mailing tool), it is a keyed digest: an HMAC under a
 * key derived from the site's secret (WAITLIST_SECRET, or the one the store keeps). Without the key, a list of
 * addresses cannot be hashed to find whose it is, as a plain SHA-256 can.
 */

/** The digests' key, derived from the secret for this use only: never the secret, nor the links' key. */
const digestKey = (secret: string) => derivedKey(secret, "tandem waitlist digest v1");

/** HMAC-SHA256 of `value` for `purpose` ("mailbox", "leaver"), in hex, cut to 32 characters (128 bits). */
export function keyedDigest(secret: string, purpose: string, value: string): string {
  return createHmac("sha256", digestKey(secret)).update(`${purpose}\n${value}`, "utf8").digest("hex").slice(0, 32);
}
