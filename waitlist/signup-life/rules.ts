import { site } from "../../config/site";
import type { ListRow, OwedConfirmation, SignupRecord, SignupState } from "./types";

/*
 * Every rule that reads a signup, said once, as pure functions of the record (or of the list's rows) and the time:
 * what is owed and due, what has expired, who counts as an invite, who may be mailed an announcement or let in,
 * the daily cap's decision, the retry schedule and the retention periods. The transitions (signup-life.ts) change a
 * record by these rules; the senders, the retention, the waves, the founders' reports and the stores' reads ask them.
 *
 * Where SQL says a rule again for its index (stores/sql-store.ts), it is built from the state lists here, and a
 * property-based test holds the two equal on every store (stores/read-rules.parity.test.ts).
 */

const iso = (at: Date) => at.toISOString();
const dayMs = 86_400_000;

/** The states in which a confirmation e-mail is still owed: to be sent, or held by a sender. */
export const owedStates = ["owed", "sending"] as const satisfies readonly SignupState[];
/** The states of a member: the person confirmed (and stays a member when their mail bounces for good later). */
export const memberStates = ["confirmed", "undeliverable"] as const satisfies readonly SignupState[];
/** The states of a signup that has not confirmed (yet). */
export const unconfirmedStates = [
  "owed",
  "sending",
  "sent",
  "refused",
  "capped",
] as const satisfies readonly SignupState[];

const among = (states: readonly SignupState[], state: SignupState) => states.includes(state);

/**
 * Restricted (Art. 18): kept, and used for nothing else until lifted: no e-mail, no wave, no retention pass, no
 * count in the founders' figures. Every rule below that mails, lets in, removes or counts asks it.
 */
export const isRestricted = ({ restrictedAt }: Pick<SignupRecord, "restrictedAt">) => restrictedAt !== null;

/** Still owed its confirmation e-mail: neither sent, nor refused, nor held back by the cap, nor confirmed. */
export const owes = ({ state }: Pick<SignupRecord, "state">) => among(owedStates, state);

/** A member: the person confirmed their signup. */
export const isMember = ({ state }: Pick<SignupRecord, "state">) => among(memberStates, state);

/**
 * Whether an owed confirmation may be tried at `at`: owed with any retry due, or held by a sender whose lease has
 * run out (a sender that died holding it); never while restricted.
 */
export const isDue = (
  {
    state,
    confirmationNextAt,
    confirmationClaimedUntil,
    restrictedAt,
  }: Pick<SignupRecord, "state" | "confirmationNextAt" | "confirmationClaimedUntil" | "restrictedAt">,
  at: Date,
) =>
  restrictedAt === null &&
  ((state === "owed" && (confirmationNextAt === null || confirmationNextAt <= iso(at))) ||
    (state === "sending" && (confirmationClaimedUntil === null || confirmationClaimedUntil < iso(at))));

/** The confirmation a record owes: the asking under way (a repeat signup's), or the first. */
export const owedOf = ({ email, emailKey, createdAt, optInSince, askedAt }: SignupRecord): OwedConfirmation => ({
  email,
  emailKey,
  createdAt,
  askedSince: askedAt ?? optInSince,
});

/** A new signup's confirmation: its first asking, from its signup on. */
export const firstAsking = ({ email, emailKey, createdAt }: Pick<SignupRecord, "email" | "emailKey" | "createdAt">) =>
  ({ email, emailKey, createdAt, askedSince: createdAt }) satisfies OwedConfirmation;

/** How long a signup asked to confirm is kept unconfirmed: the Privacy Policy's 30 days. */
export const unconfirmedRetentionMs = site.waitlist.unconfirmedRetentionDays * dayMs;
/** How long the keyed digest of a member who left is kept (leavers.ts): the Privacy Policy says so. */
export const leaverDigestRetentionMs = site.waitlist.leaverDigestRetentionDays * dayMs;
/** How long after its e-mail the launch mail tool may keep a wave let in for it: the Privacy Policy's 30 days. */
export const launchToolRetentionMs = site.waitlist.launchToolRetentionDays * dayMs;
/** How long an address the mail must never reach again (a bounce for good, a complaint) is kept as a fingerprint. */
export const suppressionRetentionMs = site.waitlist.suppressionRetentionDays * dayMs;

/** How long the entry of a member whose mail bounced for good is kept after the bounce: the Privacy Policy's days. */
export const undeliverableRetentionMs = site.waitlist.undeliverableRetentionDays * dayMs;

/** How long the entry of a person let in is kept after their wave: the Privacy Policy's days. */
export const letInRetentionMs = site.waitlist.letInRetentionDays * dayMs;

/**
 * A signup from before the confirm step never asked to confirm (NewSignup.earlier): the Privacy Policy promises to
 * ask it once before the launch, so `count` names them, `ask-to-confirm` asks them, and no wave starts before.
 */
export const neverAsked = ({ state, optInSince }: Pick<SignupRecord, "state" | "optInSince">) =>
  among(unconfirmedStates, state) && optInSince === null;

/**
 * Expired: asked to confirm before `before` and never did; the retention removes it as a departure "pruned". Never
 * one restricted: it is kept until the restriction is lifted.
 */
export const expired = (
  { state, optInSince, restrictedAt }: Pick<SignupRecord, "state" | "optInSince" | "restrictedAt">,
  before: Date,
) => restrictedAt === null && among(unconfirmedStates, state) && optInSince !== null && optInSince < iso(before);

/** Still as the retention found it (asked at `optInSince`, unconfirmed): one that confirmed or was asked anew stays. */
export const stillExpired = (record: Pick<SignupRecord, "state" | "optInSince" | "restrictedAt">, optInSince: string) =>
  record.restrictedAt === null && among(unconfirmedStates, record.state) && record.optInSince === optInSince;

/**
 * Past its wave: let in before `before`; the daily pass deletes the entry as a departure "after-wave". Never one
 * restricted.
 */
export const pastItsWave = (
  { wave, letInAt, restrictedAt }: Pick<SignupRecord, "wave" | "letInAt" | "restrictedAt">,
  before: Date,
) => restrictedAt === null && wave !== null && letInAt !== null && letInAt < iso(before);

/**
 * When a member's bounce counts from if it bounced before bounces were dated (issue 67): the day that came out, no
 * earlier than any such bounce. Every store's migration dates them so (SQL's migrations, Blobs' upgraded records).
 */
export const undatedBounce = "2026-12-02T00:00:00.000Z";

/**
 * Undeliverable since before `before`: a member whose mail bounced for good then (confirmationFailedAt); the daily
 * pass deletes the entry as a departure "undeliverable". One undeliverable before its bounce was dated counts from
 * undatedBounce, as its store's migration dated it. Never one restricted.
 */
export const pastUndeliverable = (
  { state, confirmationFailedAt, restrictedAt }: Pick<SignupRecord, "state" | "confirmationFailedAt" | "restrictedAt">,
  before: Date,
) =>
  restrictedAt === null &&
  state === "undeliverable" &&
  confirmationFailedAt !== null &&
  confirmationFailedAt < iso(before);

/**
 * Whether a leaver's keyed digest is kept (leavers.ts): only for one whose wave went to the launch mailing service,
 * the one place the digest finds them (to take them off it too).
 */
export const keepsLeaverDigest = ({ letInMail }: Pick<SignupRecord, "letInMail">) => letInMail === "launch-tool";

/** A repeat signup of an unconfirmed address is sent the e-mail again at most this often: a day. */
export const askAgainAfterMs = dayMs;

/** The retry schedule after a failure that may pass: 5 s, 30 s, 2 min, 10 min, then hourly. */
export const retryDelaysMs = [5_000, 30_000, 120_000, 600_000, 3_600_000] as const;

/** The wait before the next attempt after attempt number `attempt` (1 for the first) failed for now. */
export const retryDelayMs = (attempt: number, delays: readonly number[] = retryDelaysMs) =>
  delays[Math.min(Math.max(attempt, 1), delays.length) - 1] ?? 60_000;

/**
 * The daily cap on confirmation e-mails to one mailbox (mail/mailbox.ts), however its address is spelled. One of the
 * day's e-mails is set apart for the mailbox's own address, which its other spellings cannot spend: a stranger who
 * signs up three of them first cannot keep its owner from ever confirming. It comes out of the cap, not on top of
 * it: the own address's first e-mail of the day is that one, and every other e-mail shares the rest. With a cap of
 * one there is nothing to set apart.
 */
export const mailboxCap = (dailyMails: number) => {
  const setApart = dailyMails > 1 ? 1 : 0;
  return {
    /** Whether the own address's count of the day (this e-mail included) makes it the one set apart. */
    setApartFor: (ownCount: number) => setApart > 0 && ownCount === 1,
    /** Whether the mailbox's count of the day (this e-mail included) is past what the spellings share. */
    over: (mailboxCount: number) => mailboxCount > dailyMails - setApart,
    /** Whether the own address has a count of its own at all. */
    keepsOwnCount: setApart > 0,
  };
};

/** A member the mail still reaches: confirmed, and no bounce for good since. */
export const isMailable = ({ state }: Pick<SignupRecord, "state">) => state === "confirmed";

/** The messages a person is sent: their confirmation, their wave's "You're in", a policy's change. */
export const mailKinds = ["confirmation", "wave", "announcement"] as const;
export type MailKind = (typeof mailKinds)[number];

/**
 * Why a person is not mailed a message, each said to the founders: gone from the list (or signed up anew since), their
 * entry restricted, their mail bounced for good, let in already (an announcement's consent ran until then), the
 * message sent already (or being sent), not a member (an announcement or a wave is for those who confirmed), their
 * address or mailbox held after a bounce or a complaint (suppressions.ts, read by key: the sender asks it).
 */
export type NotMailed =
  "left" | "restricted" | "undeliverable" | "let-in" | "already-sent" | "not-member" | "suppressed";

/**
 * Who may be mailed: the one rule every sender, every choice of whom to mail and every count of who was skipped asks,
 * for a message of `kind` to `record` as the store has it (undefined: not listed). Undefined when they may be; else
 * why not. Suppression is not in the record: the sender reads it by key, once this rule has said yes.
 */
export function whyNotMailed(
  kind: MailKind,
  record: Pick<SignupRecord, "state" | "wave" | "restrictedAt"> | undefined,
): NotMailed | undefined {
  if (record === undefined) return "left";
  if (isRestricted(record)) return "restricted";
  if (kind === "confirmation") return owes(record) ? undefined : "already-sent";
  if (!isMember(record)) return "not-member";
  if (!isMailable(record)) return "undeliverable";
  if (kind === "announcement" && record.wave !== null) return "let-in";
  return undefined;
}

/**
 * Who may be sent a policy-change announcement: a member the mail still reaches, not yet let in (their consent is to
 * hear from us until early access opens for them), not restricted.
 */
export const mayBeAnnouncedTo = (record: Pick<SignupRecord, "state" | "wave" | "restrictedAt">) =>
  whyNotMailed("announcement", record) === undefined;

/** Who a wave may let in: a member the mail still reaches, in no wave yet, not restricted. */
export const mayBeLetIn = (record: Pick<SignupRecord, "state" | "wave" | "restrictedAt">) =>
  record.wave === null && whyNotMailed("wave", record) === undefined;

/**
 * Whether `invitee` counts as an invite of the inviter whose code it came by: it confirmed, it came by a code, and
 * its mailbox is not the inviter's own (which also keeps a signup from counting for itself). One per mailbox is the
 * count's rule (countedInvites); one who left counts no more (their record is gone).
 */
export const countsAsInvite = (
  inviter: Pick<SignupRecord, "mailboxDigest">,
  invitee: Pick<SignupRecord, "state" | "invitedBy" | "mailboxDigest" | "restrictedAt">,
): boolean =>
  isMember(invitee) &&
  !isRestricted(invitee) &&
  invitee.invitedBy !== null &&
  invitee.mailboxDigest !== null &&
  inviter.mailboxDigest !== invitee.mailboxDigest;

/**
 * The invites that count in a whole list: each confirmed invitee that countsAsInvite for a listed inviter, one per
 * inviter and mailbox (the first to confirm). Every figure of invites (an inviter's count, stats, the digest, a wave
 * by invites) is made of these.
 */
export function countedInvites<
  Row extends Pick<ListRow, "state" | "confirmedAt" | "inviteCode" | "invitedBy" | "mailboxDigest" | "restrictedAt">,
>(rows: readonly Row[]): Row[] {
  const inviters = new Map(rows.flatMap((row) => (row.inviteCode ? [[row.inviteCode, row]] : [])));
  const seen = new Set<string>();
  const byConfirmation = [...rows].sort((a, b) => (a.confirmedAt ?? "").localeCompare(b.confirmedAt ?? ""));
  return byConfirmation.filter((row) => {
    const inviter = row.invitedBy ? inviters.get(row.invitedBy) : undefined;
    const once = `${row.invitedBy} ${row.mailboxDigest}`;
    if (!inviter || !countsAsInvite(inviter, row) || seen.has(once)) return false;
    seen.add(once);
    return true;
  });
}

/** How many invites count for each inviter's code (countedInvites), by code. */
export function invitesByCode(rows: Parameters<typeof countedInvites>[0]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { invitedBy } of countedInvites(rows)) counts.set(invitedBy!, (counts.get(invitedBy!) ?? 0) + 1);
  return counts;
}
