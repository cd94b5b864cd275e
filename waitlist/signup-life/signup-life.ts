import { noAttribution, type Attribution } from "../attribution";
import { isMember, isRestricted, keepsLeaverDigest, mayBeAnnouncedTo, mayBeLetIn, owes } from "./rules";
import type {
  Confirmation,
  Departure,
  DepartureKind,
  LetInMail,
  ListedSignup,
  NewSignup,
  ObjectionKind,
  Signup,
  SignupRecord,
} from "./types";

/*
 * A signup's life, said once: every rule of what happens to one signup, as pure transitions on its record, each a
 * function of the record, the time and the input; the rules that only read a record are beside them (rules.ts). The
 * stores (waitlist/stores/) only keep records: they read one by key, hand it to a transition here, and write back
 * what it returns by compare-and-swap. A transition that returns undefined changes nothing. A record's state (types.ts,
 * SignupState) is written here and nowhere else:
 *
 *   add ─► owed ─claim─► sending ─sent─► sent ─confirm─► confirmed ─credit─► (its inviter's count)
 *           ▲  ◄─release─┘     └─fail─► refused, or capped (the daily cap)    │
 *           └──── ask (a repeat, a founder) ◄── sent, capped (and, by a founder, refused)
 *   owed, sending, sent ─bounce─► refused;   confirmed ─bounce─► undeliverable
 *   any state but a member's ─expire─► a departure "pruned"; any ─leave─► a departure (a complaint is one)
 *
 *   confirmed ─let in─► in wave N ─► its e-mail: owed ─take─► sending ─sent─► sent
 *                                    (or the launch tool's)  ◄─back─┘ └─refuse─► refused
 */

const iso = (at: Date) => at.toISOString();
/** The mail server's words, as much as is kept of them. */
const kept = (error: string) => error.slice(0, 500);

/**
 * add: a new signup, owed its confirmation (unless it was sent elsewhere: an import), asked from now on; held by its
 * own sender with `claimFor` (its first attempt, as a claim makes it).
 */
export function add(entry: NewSignup, at: Date, { inviterKnown }: { inviterKnown: boolean }): SignupRecord {
  const createdAt = iso(at);
  const held = entry.claimFor !== undefined && !entry.confirmationSentAt;
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
    state: entry.confirmationSentAt ? "sent" : held ? "sending" : "owed",
    confirmationSentAt: entry.confirmationSentAt ? iso(entry.confirmationSentAt) : null,
    confirmationAttempts: held ? 1 : 0,
    confirmationClaimedUntil: held ? iso(new Date(at.getTime() + entry.claimFor!)) : null,
    confirmationNextAt: null,
    confirmationFailedAt: null,
    confirmationError: null,
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
    mailboxDigest: entry.mailboxDigest ?? null,
    announcements: [],
    wave: null,
    letInAt: null,
    letInMail: null,
    attributionObjectedAt: null,
    inviteObjectedAt: null,
    rankingObjectedAt: null,
    recordsObjectedAt: null,
    restrictedAt: null,
  };
}

/** repeat: the address signed up again; the first signup and its attribution stay, the repeat is counted. */
export const repeat = <R extends SignupRecord>(record: R): R => ({
  ...record,
  repeatSignups: record.repeatSignups + 1,
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
  const mailedLongAgo =
    (record.state === "sent" || record.state === "capped") &&
    last !== null &&
    Date.parse(last) <= at.getTime() - (resendAfterMs ?? 0);
  const asks =
    !isMember(record) &&
    !isRestricted(record) &&
    !(again && record.state === "refused") &&
    (record.optInSince === null || (again && mailedLongAgo));
  if (!asks) return undefined;
  return {
    ...record,
    state: "owed",
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
} as const;

/** claim: the right to send the confirmation until `now + leaseMs`, one attempt more; none when not due. */
export function claim<R extends SignupRecord>(record: R, now: Date, leaseMs: number): R | undefined {
  if (
    !owes(record) ||
    isRestricted(record) ||
    (record.confirmationClaimedUntil !== null && record.confirmationClaimedUntil >= iso(now))
  ) {
    return undefined;
  }
  return {
    ...record,
    state: "sending",
    confirmationAttempts: record.confirmationAttempts + 1,
    confirmationClaimedUntil: iso(new Date(now.getTime() + leaseMs)),
  };
}

/**
 * sent: the mail with the confirm link went out; a signup not asked before is asked since then. One that confirmed
 * meanwhile (by the link of an earlier asking) stays confirmed.
 */
export const sent = <R extends SignupRecord>(record: R, at: Date): R => ({
  ...record,
  state: isMember(record) ? record.state : "sent",
  confirmationSentAt: iso(at),
  confirmationClaimedUntil: null,
  confirmationError: null,
  confirmationNextAt: null,
  optInSince: record.optInSince ?? iso(at),
});

/**
 * release: a claim given back after a failure that may pass, the error kept; the next attempt due at `retryAt`. With
 * `uncounted`, the attempt is not counted: the message never reached the provider's judgement, because the provider
 * asked every sender to wait (a throttle, a quota, the server down: mail/pace.ts).
 */
export const release = <R extends SignupRecord>(
  record: R,
  error: string,
  retryAt: Date,
  { uncounted = false }: { uncounted?: boolean } = {},
): R | undefined =>
  owes(record)
    ? {
        ...record,
        state: "owed",
        confirmationAttempts: uncounted ? Math.max(0, record.confirmationAttempts - 1) : record.confirmationAttempts,
        confirmationClaimedUntil: null,
        confirmationError: kept(error),
        confirmationNextAt: iso(retryAt),
      }
    : undefined;

/**
 * fail: no more attempts at a confirmation still owed. Refused for good by the mail server, or `capped`: its mailbox
 * had its day's e-mails.
 */
export const fail = <R extends SignupRecord>(record: R, error: string, at: Date, capped = false): R | undefined =>
  owes(record)
    ? {
        ...record,
        state: capped ? "capped" : "refused",
        confirmationClaimedUntil: null,
        confirmationError: kept(error),
        confirmationFailedAt: iso(at),
        confirmationNextAt: null,
      }
    : undefined;

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
  if (isMember(record)) return { record, first: false };
  return {
    record: {
      ...record,
      state: "confirmed",
      confirmationClaimedUntil: null,
      confirmedAt: iso(at),
      privacyPolicyAtConfirm: privacyPolicy,
      consentAtConfirm: consent,
      inviteCode: record.inviteCode ?? inviteCode,
    },
    first: true,
  };
}

/**
 * bounce: the mail to this address bounced for good, reported by the provider after it took the message. A signup
 * not yet confirmed is refused (no more attempts; the retention removes it in its time); a member is undeliverable,
 * kept as a member and never mailed again, until the retention deletes it its days after the bounce. Undefined for one refused or undeliverable already.
 */
export function bounce<R extends SignupRecord>(record: R, error: string, at: Date): R | undefined {
  if (record.state === "refused" || record.state === "undeliverable") return undefined;
  const failed = { confirmationClaimedUntil: null, confirmationNextAt: null, confirmationError: kept(error) };
  // A member's bounce is dated too: the retention deletes the entry its days after it (rules.ts, pastUndeliverable).
  if (isMember(record)) return { ...record, ...failed, state: "undeliverable", confirmationFailedAt: iso(at) };
  return { ...record, ...failed, state: "refused", confirmationFailedAt: iso(at) };
}

/**
 * leave: the record goes whole; what stays is a departure, with the keyed digest of one whose wave went to the launch
 * mailing service (rules.ts, keepsLeaverDigest).
 */
export const leave = (record: SignupRecord, how: DepartureKind, at: Date, digest?: string): Departure => ({
  how,
  at: iso(at),
  ...(digest && keepsLeaverDigest(record) ? { digest } : {}),
});

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
  return mayBeAnnouncedTo(record) && !noted ? { ...record, announcements: [...record.announcements, id] } : undefined;
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
  if (record.createdAt !== createdAt || !mayBeLetIn(record)) return undefined;
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
  // A restricted person's e-mail stays owed until the restriction is lifted.
  if (step === "take" && isRestricted(record)) return undefined;
  return record.wave === wave && record.letInMail === from ? { ...record, letInMail: to } : undefined;
}

/** Where each objection is noted. */
const objectionField = {
  attribution: "attributionObjectedAt",
  invite: "inviteObjectedAt",
  ranking: "rankingObjectedAt",
  records: "recordsObjectedAt",
} as const satisfies Record<ObjectionKind, keyof SignupRecord>;

/** When the person objected to `to`; null if never. */
export const objectedAt = (record: SignupRecord, to: ObjectionKind) => record[objectionField[to]];

/**
 * object: the person objected (Art. 21 GDPR, the Privacy Policy's "Your Right to Object") to `to`, noted at `at` once
 * (the first time stays), and from then on: `attribution`, their page and campaign tag are cleared; `invite`, the code
 * of the link they came by is cleared, so they count for no inviter; `ranking`, a wave by invites counts none for
 * them, and the founders' figures name them among no top inviters; `records`, nothing is cleared: the record of
 * their consent is the proof that we may e-mail them (the policy says so), and is kept for that alone.
 */
export function object<R extends SignupRecord>(record: R, to: ObjectionKind, at: Date): R | undefined {
  if (objectedAt(record, to) !== null) return undefined;
  return {
    ...record,
    ...(to === "attribution" ? noAttribution : {}),
    ...(to === "invite" ? { invitedBy: null } : {}),
    [objectionField[to]]: iso(at),
  };
}

/**
 * restrict: the person asked that their information be kept and used for nothing else (Art. 18 GDPR), from `at`;
 * with `at` null, the restriction is lifted. Undefined when it is so already. While restricted, nothing mails, lets
 * in, removes or counts them (rules.ts, isRestricted); a leave still deletes the entry.
 */
export function restrict<R extends SignupRecord>(record: R, at: Date | null): R | undefined {
  if ((at === null) === (record.restrictedAt === null)) return undefined;
  // An e-mail a sender held when the restriction began is due again, as owed, once it is lifted.
  const held = at !== null && record.state === "sending" ? { state: "owed", confirmationClaimedUntil: null } : {};
  return { ...record, ...held, restrictedAt: at === null ? null : iso(at) };
}

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
