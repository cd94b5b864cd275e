import { site } from "../config/site";
import type { Env } from "../config/env";
import { leaverDigest } from "../waitlist/leavers";
import { leaverDigestRetentionMs } from "../waitlist/signup-life/rules";
import { suppressedUntilBy } from "../waitlist/suppressions";
import { existingFingerprintKey, type OpenedStore } from "./open-store";

/*
 * What the store holds of a person besides their entry, for an access request (Art. 15): the keyed fingerprints that
 * outlive it. Neither can be turned back into the address, but each is about that person, so "we hold nothing" would
 * be untrue while one is kept: an address's after a bounce for good, a mailbox's after a spam complaint
 * (waitlist/suppressions.ts), and
 * an address's after a leave whose wave went to the launch mailing service (waitlist/leavers.ts). Each found by the
 * address's key, as the site finds it: the suppression by key, the leavers' digests in one read of the days kept.
 */

const day = (iso: string) => iso.slice(0, 10);

/**
 * A line for each fingerprint of `key`'s mailbox or address the store still keeps at `now`; none when it keeps none.
 * `listed`: the person has an entry, so no leave of theirs is the one kept (a leave deletes the entry): the leavers'
 * digests, a read of every leave's of the days kept, are read only for one not listed.
 */
export async function heldFingerprints(
  opened: OpenedStore,
  env: Env,
  key: string,
  now: Date,
  { listed = false }: { listed?: boolean } = {},
): Promise<string[]> {
  // Read as the site keeps it, never made: an answer writes nothing, and without a key nothing was ever kept under one.
  const fingerprints = await existingFingerprintKey(opened, env);
  if (fingerprints === undefined) return [];
  const held: string[] = [];
  const until = await suppressedUntilBy(opened.store, fingerprints, key, now);
  if (until) {
    held.push(
      `A keyed fingerprint of this address or of its mailbox, kept until ${day(until)} because mail to it bounced for good or was marked as spam (${site.waitlist.suppressionRetentionDays} days from the latest): no e-mail goes to it until then. It cannot be turned back into the address.`,
    );
  }
  if (listed) return held;
  const since = new Date(now.getTime() - leaverDigestRetentionMs);
  const digest = leaverDigest(fingerprints, key);
  const left = (await opened.store.leaverDigests(since)).filter((one) => one.digest === digest);
  for (const { leftAt } of left) {
    const ends = new Date(new Date(leftAt).getTime() + leaverDigestRetentionMs).toISOString();
    held.push(
      `A keyed fingerprint of this address, kept with its leave of ${day(leftAt)} until ${day(ends)} because it left after its wave went to the launch mailing service: it finds the person there to take them off too. It cannot be turned back into the address.`,
    );
  }
  return held;
}
