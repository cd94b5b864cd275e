import { noAttribution, type Attribution } from "../attribution";
import type {
  Confirmation,
  DepartureKind,
  LetInMail,
  ListedSignup,
  NewSignup,
  OwedConfirmation,
  Signup,
} from "../stores/store";

/*
 * A signup's life, said once: every rule of what happens to one signup, as pure transitions on its record, each a
 * function of the record, the time and the input. The stores (waitlist/stores/) only keep records: they read one by
 * key, hand it to a transition here, and write back what it returns by compare-and-swap. A transition that returns
 * undefined changes nothing.
 *
 *   add ─► owed ─claim─► held ─sent─► asked ─confirm─► confirmed ─credit─► (its inviter's count)
 *           ▲  ◄─release─┘  └─fail─► refused           │
 *           └──── ask (a repeat, a founder) ◄──────────┘ (unconfirmed only)      leave / expire ─► a departure
 *
 *   confirmed ─let in─► in wave N ─► its e-mail: owed ─take─► sending ─sent─► sent
 *                                    (or the launch tool's)  ◄─back─┘ └─refuse─► refused
 */

/** One signup as a store keeps it: what the founders read (Signup), and who holds its mail and when it is due. */
export interface SignupRecord extends Signup {
  /** A sender holds the confirmation until then; null when nobody does. */
  confirmationClaimedUntil: string | null;
  /** When a confirmation that failed for now is due again. */
  confirmationNextAt: string | null;
  /** When the asking now under way began: a repeat signup asks again, a message of its own; optInSince stays. */
  askedAt: string | null;
}

const iso = (at: Date) => at.toISOString();
/** The mail server's words, as much as is kept of them. */
const kept = (error: string) => error.slice(0, 500);

/** add: a new signup, owed its confirmation (unless it was sent elsewhere: an import), asked from now on. */
export function add(entry: NewSignup, at: Date, { inviterKnown }: { inviterKnown: boolean }): SignupRecord {
  const createdAt = iso(at);
  return {
    email: entry.email,
    emailKey: entry.emailKey,
    createdAt,
    source: entry.source,
    // Its attribution's fields only, whatever else the object given holds.
    ...(Object.fromEntries(
      Object.keys(noAttribution).map((name) => [name, entry.attribution?.[name as keyof Attribution] ?? null]),
    ) as Attribution),
    repeatSignups: 0,
    confirmationSentAt: entry.confirmationSentAt ? iso(entry.confirmationSentAt) : null,
    confirmationAttempts: 0,
    confirmationClaimedUntil: null,
    confirmationNextAt: null,
    confirmationFailedAt: null,
    confirmationError: null,
    confirmationCapped: false,
    confirmedAt: null,
    privacyPolicyAtSignup: entry.privacyPolicy ?? null,
    privacyPolicyAtConfirm: null,
    consentAtSignup: entry.consent ?? null,
    consentAtConfirm: null,
    // A signup from before the confirm step is not asked until a founder asks it.
    optInSince: entry.earlier ? null : createdAt,
    askedAt: null,
    inviteCode: null,
    // Kept only when it is a confirmed signup's code: an unknown one is not kept, and fails nothing.
    invitedBy: entry.invitedBy && inviterKnown ? entry.invitedBy : null,
    mailbox: entry.mailbox ?? null,
    announcements: [],
    wave: null,
    letInAt: null,
    letInMail: null,
    rankingObjectedAt: null,
  };
}

/** repeat: the address signed up again; the first signup and its attribution stay, the repeat is counted. */
export const repeat = <R extends SignupRecord>(record: R): R => ({
  ...record,
  repeatSignups: record.repeatSignups + 1,
});

/** Still owed its confirmation: neither sent nor refused for good. */
export const owes = (record: Pick<Signup, "confirmationSentAt" | "confirmationFailedAt">) =>
  record.confirmationSentAt === null && record.confirmationFailedAt === null;

/** Whether an owed confirmation may be tried at `at`: nobody holds it, and any retry is due. */
export const isDue = (record: SignupRecord, at: Date) =>
  owes(record) &&
  (record.confirmationClaimedUntil === null || record.confirmationClaimedUntil < iso(at)) &&
  (record.confirmationNextAt === null || record.confirmationNextAt <= iso(at));

/** The confirmation a record owes: the asking under way (a repeat signup's), or the first. */
export const owedOf = ({ email, emailKey, createdAt, optInSince, askedAt }: SignupRecord): OwedConfirmation => ({
  email,
  emailKey,
  createdAt,
  optInSince: askedAt ?? optInSince,
});

/**
 * ask: owed a confirmation e-mail from `at` on, unless confirmed. A signup never asked is asked (ask-to-confirm, or a
 * repeat signup). With `resendAfterMs` (a repeat signup), one asked before is asked again once its last e-mail (or
 * the day its mailbox had its e-mails, `capped`) is that old, unless the mail server refused it for good. The day the
 * retention counts from (optInSince) never moves.
 */
export function ask<R extends SignupRecord>(record: R, at: Date, { resendAfterMs }: { resendAfterMs?: number } = {}) {
  const again = resendAfterMs !== undefined;
  const last = record.confirmationSentAt ?? record.confirmationFailedAt;
  const asks =
    record.confirmedAt === null &&
    (!again || record.confirmationFailedAt === null || record.confirmationCapped) &&
    (record.optInSince === null || (again && last !== null && Date.parse(last) <= at.getTime() - resendAfterMs));
  if (!asks) return undefined;
  return {
    ...record,
    optInSince: record.optInSince ?? iso(at),
    askedAt: iso(at),
    ...unsent,
  } satisfies R;
}
const unsent = {
  confirmationSentAt: null,
  confirmationFailedAt: null,
  confirmationError: null,
  confirmationNextAt: null,
  confirmationClaimedUntil: null,
  confirmationAttempts: 0,
  confirmationCapped: false,
} as const;

/** claim: the right to send the confirmation until `now + leaseMs`, one attempt more; none when not due. */
export function claim<R extends SignupRecord>(record: R, now: Date, leaseMs: number): R | undefined {
  if (!owes(record) || (record.confirmationClaimedUntil !== null && record.confirmationClaimedUntil >= iso(now))) {
    return undefined;
  }
  return {
    ...record,
    confirmationAttempts: record.confirmationAttempts + 1,
    confirmationClaimedUntil: iso(new Date(now.getTime() + leaseMs)),
  };
}

/** sent: the mail with the confirm link went out; a signup not asked before is asked since then. */
export const sent = <R extends SignupRecord>(record: R, at: Date): R => ({
  ...record,
  confirmationSentAt: iso(at),
  confirmationClaimedUntil: null,
  confirmationError: null,
  confirmationNextAt: null,
  optInSince: record.optInSince ?? iso(at),
});

/** release: a claim given back after a failure that may pass, the error kept; the next attempt due at `retryAt`. */
export const release = <R extends SignupRecord>(record: R, error: string, retryAt: Date): R => ({
  ...record,
  confirmationClaimedUntil: null,
  confirmationError: kept(error),
  confirmationNextAt: iso(retryAt),
});

/** fail: no more attempts. Refused for good by the mail server, or `capped`: its mailbox had its day's e-mails. */
export const fail = <R extends SignupRecord>(record: R, error: string, at: Date, capped = false): R => ({
  ...record,
  confirmationClaimedUntil: null,
  confirmationError: kept(error),
  confirmationFailedAt: iso(at),
  confirmationNextAt: null,
  confirmationCapped: capped,
});

/**
 * confirm: the person confirmed the signup stored at `createdAt` (its link names it), under the policy then in
 * force. The first confirmation is the one kept, with the invite code it gives the signup for good; a second press
 * changes nothing (`record` is then the one kept). Undefined for a link to another signup of the address.
 */
export function confirm<R extends SignupRecord>(
  record: R,
  { createdAt, at, privacyPolicy, consent = null, inviteCode }: Confirmation & { inviteCode: string },
): { record: R; first: boolean } | undefined {
  if (record.createdAt !== createdAt) return undefined;
  if (record.confirmedAt !== null) return { record, first: false };
  return {
    record: {
      ...record,
      confirmedAt: iso(at),
      privacyPolicyAtConfirm: privacyPolicy,
      consentAtConfirm: consent,
      inviteCode: record.inviteCode ?? inviteCode,
    },
    first: true,
  };
}

/**
 * credit an invite: whether `invitee` counts for the inviter whose code it came by. Once it confirmed, one per
 * mailbox, never the inviter's own mailbox, never itself; one who left counts no more (its record is gone).
 */
export const credits = (
  inviter: { key: string; mailbox: string | null },
  invitee: SignupRecord & { key: string },
): boolean =>
  invitee.confirmedAt !== null &&
  invitee.invitedBy !== null &&
  invitee.mailbox !== null &&
  inviter.key !== invitee.key &&
  inviter.mailbox !== invitee.mailbox;

/** What a departure keeps: when and how, never who; a keyed digest only of a confirmed member (leavers.ts). */
export interface Departure {
  how: DepartureKind;
  at: string;
  digest?: string;
}

/** leave: the record goes whole; what stays is a departure. */
export const leave = (record: SignupRecord, how: DepartureKind, at: Date, digest?: string): Departure => ({
  how,
  at: iso(at),
  ...(digest && record.confirmedAt !== null ? { digest } : {}),
});

/** expire: asked to confirm before `before` and never did; the retention removes it as a departure "pruned". */
export const expired = (record: SignupRecord, before: Date) =>
  record.confirmedAt === null && record.optInSince !== null && record.optInSince < iso(before);

/** Still as the retention found it (asked at `optInSince`, unconfirmed): one that confirmed or was asked anew stays. */
export const stillExpired = (record: SignupRecord, optInSince: string) =>
  record.confirmedAt === null && record.optInSince === optInSince;

/** An announcement's id (cli/commands/announce.ts): letters, digits and "-", so every store keeps it as it is. */
export function checkAnnouncementId(id: string): void {
  if (!/^[a-z0-9-]+$/i.test(id)) throw new Error(`An announcement's id is letters, digits and "-" (got "${id}").`);
}

/**
 * announce: notes that the announcement `id` goes to this confirmed signup, before it is sent, once; with `undo`,
 * takes the note back after a send that failed. Undefined when there is nothing to note or take back.
 */
export function announce<R extends SignupRecord>(record: R, id: string, undo = false): R | undefined {
  checkAnnouncementId(id);
  const noted = record.announcements.includes(id);
  if (undo) return noted ? { ...record, announcements: record.announcements.filter((one) => one !== id) } : undefined;
  return record.confirmedAt !== null && !noted
    ? { ...record, announcements: [...record.announcements, id] }
    : undefined;
}

/**
 * let in: the confirmed signup stored at `createdAt` joins wave `wave` at `at`, once: one in a wave already, not
 * confirmed, or a newer signup of the address (one who left and joined again starts over) is not. With `mail`, it is
 * owed the wave's "You're in" e-mail (cli/commands/let-in.ts); without, the launch tool mails it.
 */
export function letIn<R extends SignupRecord>(
  record: R,
  { wave, at, createdAt, mail }: { wave: number; at: Date; createdAt: string; mail: boolean },
): R | undefined {
  if (record.createdAt !== createdAt || record.confirmedAt === null || record.wave !== null) return undefined;
  return { ...record, wave, letInAt: iso(at), letInMail: mail ? "owed" : "launch-tool" };
}

/** The steps of a wave's e-mail, each from one state to the next (LetInMail). */
const letInMailSteps = {
  take: ["owed", "sending"],
  sent: ["sending", "sent"],
  back: ["sending", "owed"],
  refuse: ["sending", "refused"],
} as const satisfies Record<string, readonly [LetInMail, LetInMail]>;
export type LetInMailStep = keyof typeof letInMailSteps;

/**
 * One step of the wave's e-mail to a signup in wave `wave`: taken before it is sent (so two runs, or a run resumed,
 * never both send it), sent, given back after a failure that may pass, or refused for good by the mail server.
 * Undefined when the record is not at that step's start: then the step is not this caller's to make.
 */
export function letInMailStep<R extends SignupRecord>(record: R, step: LetInMailStep, wave: number): R | undefined {
  const [from, to] = letInMailSteps[step];
  return record.wave === wave && record.letInMail === from ? { ...record, letInMail: to } : undefined;
}

/**
 * object to ranking: the person objected (Art. 21 GDPR, the Privacy Policy's "Your Right to Object") to being ranked
 * by the creators they invited; from `at` on, a wave by invites counts none for them. Noted once: the first time stays.
 */
export const objectToRanking = <R extends SignupRecord>(record: R, at: Date): R | undefined =>
  record.rankingObjectedAt === null ? { ...record, rankingObjectedAt: iso(at) } : undefined;

/** What a link's page shows of a record, with its inviter count as the store read it. */
export const listed = (
  { email, createdAt, confirmedAt, inviteCode }: SignupRecord,
  confirmedInvites: number,
): ListedSignup => ({ email, createdAt, confirmedAt, inviteCode, confirmedInvites });

/** The founders' view of a record: everything but who holds its mail and when. */
export function signupOf({
  confirmationClaimedUntil: _held,
  confirmationNextAt: _next,
  askedAt: _asked,
  ...signup
}: SignupRecord): Signup {
  return signup;
}
