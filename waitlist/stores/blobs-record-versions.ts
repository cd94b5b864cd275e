import { add } from "../signup-life/signup-life";
import type { SignupRecord, SignupState } from "../signup-life/types";
import { undatedBounce } from "../signup-life/rules";

/*
 * A Netlify Blobs record or ledger row as an earlier version wrote it, read as today's: the Blobs store's migration
 * of a record's fields, made as it is read (a blob is rewritten only by a transition), as blobs-migrations.ts carries
 * its keys forward and the SQL stores' migrations change their tables.
 */

/** Every field of a record at its starting value: what a record written before a field existed holds. */
const nobody = { email: "", emailKey: "", source: "netlify", earlier: true } as const;
const starting = add(nobody, new Date(0), { inviterKnown: false });

/** The state a record written before it had one was in, by its times (the SQL migrations say the same). */
function stateFromTimes(record: Record<string, unknown>): SignupState {
  if (record.confirmedAt) return "confirmed";
  if (record.confirmationSentAt) return "sent";
  if (record.confirmationFailedAt) return record.confirmationCapped ? "capped" : "refused";
  return record.confirmationClaimedUntil ? "sending" : "owed";
}

/**
 * A record or ledger row as signup-life's, whenever it was written: the fields added since at their starting values
 * (a blob is rewritten only by a transition, so a confirmed signup waiting since before waves has no `wave` until it is
 * read this way), its state from its times, and the earlier names of its fields under today's. The Blobs store's own
 * fields (chunk, leaving) come through as they are.
 */
export function upgraded(stored: Record<string, unknown>): SignupRecord {
  const { attempts, claimedUntil, mailbox, confirmationCapped: _capped, ...rest } = stored;
  const named: Record<string, unknown> = {
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    ...(claimedUntil !== undefined && { confirmationClaimedUntil: claimedUntil }),
    ...(attempts !== undefined && { confirmationAttempts: attempts }),
    ...(mailbox !== undefined && { mailboxDigest: mailbox }),
  };
  const state = (rest.state as SignupState | undefined) ?? stateFromTimes(stored);
  // A member's bounce undated (before issue 67) counts from the day bounces were dated, as SQL's migrations date it.
  const bounce =
    state === "undeliverable" && !named.confirmationFailedAt ? { confirmationFailedAt: undatedBounce } : {};
  return { ...starting, ...named, state, ...bounce };
}
