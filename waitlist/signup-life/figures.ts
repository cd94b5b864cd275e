import type { StatsSignup } from "../reports/stats";
import type { ConfirmationCounts } from "../stores/store";
import type { SignupRecord } from "./signup-life";

/*
 * The founders' figures of a whole list, counted from its records for every store (stores/record-keeper.ts).
 */

/** Sent; still owed (not sent, not failed for good); failed for good. */
export function confirmationCounts(records: readonly SignupRecord[]): ConfirmationCounts {
  const counts = { sent: 0, pending: 0, failed: 0 };
  for (const one of records) {
    counts[one.confirmationSentAt !== null ? "sent" : one.confirmationFailedAt !== null ? "failed" : "pending"]++;
  }
  return counts;
}

/** Addresses the mail server refused for good, with its error. */
export const failedConfirmations = (records: readonly SignupRecord[]) =>
  records.flatMap(({ email, confirmationFailedAt: failedAt, confirmationError: error }) =>
    failedAt === null ? [] : [{ email, failedAt, error: error ?? "" }],
  );

/** The mail server's words on the most recent confirmation that failed, for good or for now. */
export const lastConfirmationError = (records: readonly SignupRecord[]): string | undefined =>
  records
    .filter((one) => one.confirmationError !== null && one.confirmationSentAt === null)
    .map((one) => ({ error: one.confirmationError!, at: one.confirmationFailedAt ?? one.confirmationNextAt ?? "" }))
    .sort((a, b) => b.at.localeCompare(a.at))[0]?.error;

/** What stats needs of a record, and no more. */
export const statsRowOf = (one: SignupRecord): StatsSignup => ({
  createdAt: one.createdAt,
  utmSource: one.utmSource,
  utmCampaign: one.utmCampaign,
  ref: one.ref,
  confirmedAt: one.confirmedAt,
  inviteCode: one.inviteCode,
  invitedBy: one.invitedBy,
  mailbox: one.mailbox,
  wave: one.wave,
  letInAt: one.letInAt,
  letInMail: one.letInMail,
});
