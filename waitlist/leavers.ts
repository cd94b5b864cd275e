import { fingerprint, type FingerprintKey } from "./fingerprints";

/*
 * Someone who leaves after the founders exported the launch list is still in the mailing tool that list went to.
 * So a leave keeps, with its departure, a keyed digest of the address (fingerprints.ts): not the address, and nothing a
 * list of addresses can be matched against without the store's fingerprint key, which a rotation of WAITLIST_SECRET
 * leaves as it is. `npm run waitlist -- leavers --from FILE` matches the tool's own export of its members against them
 * and names who to remove there. The digests are dropped once their days are over (signup-life's
 * leaverDigestRetentionMs), by the retention's daily pass (prune.ts); the departure stays, naming nobody.
 */

/** The digest a departure keeps of the address that left (its key, email-address.ts). */
export const leaverDigest = (key: FingerprintKey, emailKey: string) => fingerprint(key, "leaver", emailKey);
