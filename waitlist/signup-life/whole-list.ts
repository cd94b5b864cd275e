import { isMember, isRestricted, owes } from "./rules";
import type { ConfirmationCounts, ListRow, SignupRecord } from "./types";

/*
 * The founders' counts over a whole list of records, by the rules of rules.ts: for the stores' whole-list reads
 * (stores/record-keeper.ts), which only the founders' commands make.
 */

/**
 * Sent (or confirmed since), still owed, refused for good or held back by the daily cap. A restricted entry counts in
 * none (Art. 18: used for nothing else, the founders' figures included), as in every figure of stats.
 */
export function confirmationCounts(
  records: readonly Pick<SignupRecord, "state" | "restrictedAt">[],
): ConfirmationCounts {
  const counts = { sent: 0, pending: 0, failed: 0 };
  for (const one of records.filter((record) => !isRestricted(record)))
    counts[owes(one) ? "pending" : one.state === "sent" || isMember(one) ? "sent" : "failed"]++;
  return counts;
}

/** Addresses the mail server refused for good, or the cap held back, with the reason. */
export const failedConfirmations = (records: readonly SignupRecord[]) =>
  records.flatMap(({ email, state, confirmationFailedAt: failedAt, confirmationError: error }) =>
    (state === "refused" || state === "capped") && failedAt !== null ? [{ email, failedAt, error: error ?? "" }] : [],
  );

/** The mail server's words on the most recent confirmation that failed, for good or for now. */
export const lastConfirmationError = (records: readonly SignupRecord[]): string | undefined =>
  records
    .filter((one) => one.confirmationError !== null && one.state !== "sent" && !isMember(one))
    .map((one) => ({ error: one.confirmationError!, at: one.confirmationFailedAt ?? one.confirmationNextAt ?? "" }))
    .sort((a, b) => b.at.localeCompare(a.at))[0]?.error;

/** What the founders' figures need of a record, and no more. */
export const listRowOf = (one: SignupRecord): ListRow => ({
  createdAt: one.createdAt,
  utmSource: one.utmSource,
  utmCampaign: one.utmCampaign,
  ref: one.ref,
  state: one.state,
  confirmedAt: one.confirmedAt,
  inviteCode: one.inviteCode,
  invitedBy: one.invitedBy,
  mailboxDigest: one.mailboxDigest,
  wave: one.wave,
  letInAt: one.letInAt,
  letInMail: one.letInMail,
  rankingObjectedAt: one.rankingObjectedAt,
  restrictedAt: one.restrictedAt,
  optInSince: one.optInSince,
});
