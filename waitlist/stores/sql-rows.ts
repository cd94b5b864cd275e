import { memberStates, owedStates, unconfirmedStates } from "../signup-life/rules";
import type { SignupRecord, SignupState } from "../signup-life/types";

/* A record as the SQL store's columns, and signup-life's read rules as the SQL its indexes find (sql-store.ts). */

/** Every field of a record; its column is that name in snake_case. */
export const fields = [
  ...["email", "emailKey", "createdAt", "source", "utmSource", "utmMedium", "utmCampaign", "utmContent", "utmTerm"],
  ...["ref", "landingPath", "repeatSignups", "state", "confirmationSentAt", "confirmationAttempts"],
  ...["confirmationClaimedUntil", "confirmationNextAt", "confirmationFailedAt", "confirmationError", "confirmedAt"],
  ...["privacyPolicyAtSignup", "privacyPolicyAtConfirm", "consentAtSignup", "consentAtConfirm", "optInSince"],
  ...["askedAt", "inviteCode", "invitedBy", "mailboxDigest", "announcements", "wave", "letInAt", "letInMail"],
  ...["attributionObjectedAt", "inviteObjectedAt", "rankingObjectedAt", "recordsObjectedAt", "restrictedAt"],
] as const satisfies readonly (keyof SignupRecord)[];
export const column = (name: keyof SignupRecord) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
/** `column AS "name"` for each name: both databases fold an unquoted alias to lower case. */
export const select = (...names: (keyof SignupRecord)[]) =>
  names.map((name) => `${column(name)} AS "${name}"`).join(", ");
export type Row = Record<keyof SignupRecord | "version", unknown>;
export const readRecord = `SELECT ${select(...fields)}, version FROM signups WHERE email_key = $1`;
/** A record as read: the announcements (`,id,id,`) as a list. */
export const recordOf = (row: Record<keyof SignupRecord, unknown>): SignupRecord => {
  const announcements = `${(row.announcements as string | null) ?? ""}`.split(",").filter(Boolean);
  return { ...row, announcements } as SignupRecord;
};
/** A record's fields as a statement takes them, in the order of `fields`; the announcements as `,id,id,`. */
export const valuesOf = (record: SignupRecord) =>
  fields.map((name) => (name === "announcements" ? `,${record.announcements.join(",")},` : record[name]));
/*
 * signup-life's read rules (rules.ts) as SQL, where an index must find what they find: built from its state lists, and
 * held equal to the TypeScript by read-rules.parity.test.ts on every store. The schema's partial indexes
 * (sqlite-schema.sql, postgres-schema.sql) say the same WHERE, word for word, so that both planners use them.
 */
export const inStates = (states: readonly SignupState[]) =>
  `state IN (${states.map((state) => `'${state}'`).join(", ")})`;
/** owedOf: the asking under way (a repeat signup's asked_at), or the first. */
export const owedColumns = `${select("email", "emailKey", "createdAt")}, coalesce(asked_at, opt_in_since) AS "askedSince"`;
/** owes (the index signups_owed). */
export const owedSql = inStates(owedStates);
/** isDue at $2, among those owed. */
export const dueSql = `restricted_at IS NULL AND (state = 'owed' AND (confirmation_next_at IS NULL OR confirmation_next_at <= $2)
   OR state = 'sending' AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < $2))`;
/** Not confirmed (the index signups_unconfirmed, with opt_in_since IS NOT NULL): expired and stillExpired. */
export const unconfirmedSql = inStates(unconfirmedStates);
/** isMember: an invitee who counts (countsAsInvite: not restricted either). */
export const memberSql = (table = "") => `${table}${inStates(memberStates)}`;
/** keepsLeaverDigest: a leaver whose wave went to the launch tool keeps a digest (SqlDatabase.deleteCounted). */
export const keepsDigestSql = `let_in_mail IS NOT DISTINCT FROM 'launch-tool' AS "keepsDigest"`;
