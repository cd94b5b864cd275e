import type { Attribution } from "../attribution";

/*
 * The waitlist's domain, as types: what a signup is, what it can be, and what the stores and the founders' reads
 * hand over. They live here, beside the rules that make and read them (signup-life.ts, rules.ts); the stores import
 * them, never the other way. The enumerations are arrays too, so that each SQL schema's CHECK can be held to them
 * (stores/sql-schema.test.ts).
 */

/** Where a signup came from: npm start, gatsby develop, Netlify's production deploy, or one of its previews. */
export const signupSources = ["develop", "start", "netlify", "netlify-preview"] as const;
export type SignupSource = (typeof signupSources)[number];

/**
 * How an address left: the page's button, a mail client's one-click POST, the operator's command, pruned because it
 * was never confirmed (prune.ts), a complaint: the person marked our mail as spam (mail-events/), or after its wave:
 * the entry of a person let in, deleted the Privacy Policy's days after their wave (prune.ts).
 */
export const departureKinds = [
  "link",
  "one-click",
  "operator",
  "pruned",
  "complaint",
  "after-wave",
  "undeliverable",
] as const;
export type DepartureKind = (typeof departureKinds)[number];

/**
 * Where a signup stands, one field, written only by signup-life's transitions; every rule that asks about it reads
 * this (rules.ts), and so do the stores' indexes.
 *
 *   owed           its confirmation e-mail is to be sent (now, or at its retry's time)
 *   sending        a sender holds it until its lease ends (then it is owed again)
 *   sent           the e-mail with the confirm link went out; waiting for the click
 *   refused        the mail server refused the address for good, then or by a bounce later: no more attempts
 *   capped         not sent: its mailbox had its day's confirmation e-mails (a repeat signup a day on asks again)
 *   confirmed      the person confirmed: a member
 *   undeliverable  a member whose mail bounced for good: kept, never mailed again
 */
export const signupStates = ["owed", "sending", "sent", "refused", "capped", "confirmed", "undeliverable"] as const;
export type SignupState = (typeof signupStates)[number];

/**
 * A wave's e-mail to one person: owed; taken by a run and being sent (a run that stopped then leaves it so, unsure,
 * rather than risk mailing twice); sent; refused for good by the mail server; or mailed by the launch tool instead.
 */
export const letInMailStates = ["owed", "sending", "sent", "refused", "launch-tool"] as const;
export type LetInMail = (typeof letInMailStates)[number];

/**
 * What a person may object to (Art. 21 GDPR, the Privacy Policy's "Your Right to Object"), each a use of their entry
 * on the founders' legitimate interest: the page and campaign tag they signed up with (cleared), the invite code of the
 * link they came by (cleared: they count for no inviter), being ranked by the creators they invited (their invites
 * count as none), and the records of their consent and of the site's security (kept, as proof: the policy says why).
 */
export const objectionKinds = ["attribution", "invite", "ranking", "records"] as const;
export type ObjectionKind = (typeof objectionKinds)[number];

export interface NewSignup {
  email: string;
  /** What the address is unique on (email-address.ts). */
  emailKey: string;
  source: SignupSource;
  at?: Date;
  attribution?: Attribution;
  /** When its confirmation was sent elsewhere (a copy from another store): stored as sent, owed nothing. */
  confirmationSentAt?: Date;
  /** The Privacy Policy in force when it was made: its version, the date of its last change (policies.ts). */
  privacyPolicy?: string;
  /** What the person was told they would receive, and under which policy text (policies.ts, consentRecord). */
  consent?: string;
  /** A signup from before the confirm step: never asked to confirm, never pruned until a founder asks it. */
  earlier?: boolean;
  /**
   * The invite code of the page it came from (invites.ts): kept as who invited it when it is a confirmed signup's
   * code; an unknown one is not kept, and fails nothing.
   */
  invitedBy?: string;
  /** The keyed digest of its mailbox (invites.ts): who counts as one invitee, and never as its own inviter's. */
  mailboxDigest?: string;
  /**
   * The signup's own sender sends its confirmation at once: the record is made held by it for this long (ms), its
   * first attempt, so no claim is needed after it; a sender that dies holding it lets it go when the time ends.
   */
  claimFor?: number;
}

/** A confirmation as every store records it: which signup, when, and under what it was given. */
export interface Confirmation {
  /** When the signup it confirms was stored: a later signup of the address is not confirmed by it. */
  createdAt: string;
  at: Date;
  privacyPolicy: string | null;
  consent?: string | null;
  /**
   * The signup's invite code if it has none yet (a new one, invites.ts, unless given): kept at its first
   * confirmation, the code it has ever after.
   */
  inviteCode?: string;
}

/** One signup as the founders read it (export, stats, waves): every field a store keeps but its mail's bookkeeping. */
export interface Signup extends Attribution {
  email: string;
  emailKey: string;
  /** UTC, ISO 8601. */
  createdAt: string;
  source: SignupSource;
  /** Where it stands (SignupState). */
  state: SignupState;
  /** When the confirmation e-mail was handed to the mail server; null while it is owed. */
  confirmationSentAt: string | null;
  /** When it was refused for good (state refused) or held back by the daily cap (state capped). */
  confirmationFailedAt: string | null;
  /** The mail server's last error for this address, if any. */
  confirmationError: string | null;
  /** When the person confirmed with the link in their confirmation e-mail (double opt-in); null until then. */
  confirmedAt: string | null;
  /** The Privacy Policy in force at the signup and at the confirmation: versions, the dates of its last change. */
  privacyPolicyAtSignup: string | null;
  privacyPolicyAtConfirm: string | null;
  /**
   * The consent statement they were shown and the policy's text, at the signup and at the confirmation:
   * "statement 2026-11-25; Privacy Policy 2026-11-24 #3f1c0a9b2d4e" (policies.ts, consentRecord).
   */
  consentAtSignup: string | null;
  consentAtConfirm: string | null;
  /**
   * Since when the signup is asked to confirm: its signup, or, for one from before the confirm step, when a founder
   * asked it (ask-to-confirm). Null for those never asked, which are never pruned.
   */
  optInSince: string | null;
  /** Its own invite code, from its first confirmation on; null before. */
  inviteCode: string | null;
  /** The code of the confirmed signup whose invite link it came by; null for none. */
  invitedBy: string | null;
  /** The keyed digest of its mailbox (invites.ts), never an address; null for a signup from before invites. */
  mailboxDigest: string | null;
  /** How many times the address signed up again after its first signup. */
  repeatSignups: number;
  /** Attempts at sending the confirmation under way (each claim is one). */
  confirmationAttempts: number;
  /** The policy-change announcements it was sent (AnnouncementLog), oldest first. */
  announcements: string[];
  /** The wave it was let in with at launch (Waves, cli/commands/let-in.ts); null before it is let in. */
  wave: number | null;
  /** When it was let in; null before. */
  letInAt: string | null;
  /** Its wave's "You're in" e-mail (LetInMail); null before it is let in. */
  letInMail: LetInMail | null;
  /**
   * When the person objected (npm run waitlist -- object), to each ObjectionKind; null if never: their page and
   * campaign tag, the invite code they came by, being ranked by the creators they invited, the records.
   */
  attributionObjectedAt: string | null;
  inviteObjectedAt: string | null;
  rankingObjectedAt: string | null;
  recordsObjectedAt: string | null;
  /**
   * Since when its use is restricted (Art. 18, npm run waitlist -- restrict): kept, and used for nothing else until
   * lifted: no e-mail, no wave, no retention pass, no count. Null when it is not.
   */
  restrictedAt: string | null;
}

/** One signup as a store keeps it: what the founders read, and who holds its mail and when it is due. */
export interface SignupRecord extends Signup {
  /** A sender holds the confirmation until then (state sending); null when nobody does. */
  confirmationClaimedUntil: string | null;
  /** When a confirmation that failed for now is due again. */
  confirmationNextAt: string | null;
  /** When the asking now under way began: a repeat signup asks again, a message of its own; optInSince stays. */
  askedAt: string | null;
}

/** What the founders' figures (reports/) need of each signup, and no more: never an address. */
export type ListRow = Pick<
  Signup,
  | "createdAt"
  | "utmSource"
  | "utmCampaign"
  | "ref"
  | "state"
  | "confirmedAt"
  | "inviteCode"
  | "invitedBy"
  | "mailboxDigest"
  | "wave"
  | "letInAt"
  | "letInMail"
  | "rankingObjectedAt"
  | "restrictedAt"
  | "optInSince"
>;

/** What a link's page needs to know of one listed address. */
export interface ListedSignup {
  email: string;
  createdAt: string;
  confirmedAt: string | null;
  /** Its invite code, once confirmed. */
  inviteCode: string | null;
  /**
   * How many have signed up through its invite link and confirmed, now: one per mailbox, never its own, none who
   * left or were pruned (rules.ts, countsAsInvite). Read by the code's key, never from the list.
   */
  confirmedInvites: number;
}

/** A confirmation e-mail owed: to whom, for which signup, and which asking of it (each is a message of its own). */
export interface OwedConfirmation {
  email: string;
  emailKey: string;
  createdAt: string;
  /**
   * Since when the asking it belongs to runs: a repeat signup's asking (askedAt), else the first (optInSince, which
   * the retention counts from); null for a signup from before the confirm step never asked.
   */
  askedSince: string | null;
}

/** A person let in at launch: what the retention after a wave removes (rules.ts, pastItsWave). */
export interface LetInSignup {
  email: string;
  emailKey: string;
  createdAt: string;
  letInAt: string;
}

/** A member whose mail bounced for good: what the retention after a bounce removes (rules.ts, pastUndeliverable). */
export interface UndeliverableSignup {
  email: string;
  emailKey: string;
  createdAt: string;
  /** When its mail bounced for good (confirmationFailedAt). */
  bouncedAt: string;
}

/** How many left, never who: by their own doing or a founder's, pruned unconfirmed, or deleted after their wave. */
export interface DepartureCounts {
  left: number;
  pruned: number;
  afterWave: number;
}

/** A signup asked to confirm that never did (what the retention removes). */
export interface UnconfirmedSignup {
  email: string;
  emailKey: string;
  createdAt: string;
  /** Since when it is asked to confirm (Signup.optInSince). */
  optInSince: string;
}

/** What a removal removed: the address and when it signed up. */
export type RemovedSignup = Omit<UnconfirmedSignup, "emailKey">;

/** The confirmations of a list: sent (or confirmed), still owed, and refused for good (or capped). */
export interface ConfirmationCounts {
  sent: number;
  pending: number;
  failed: number;
}

/** Why the mail must never reach an address again: it bounced for good, or its person complained (mail-events/). */
export const suppressionReasons = ["bounce", "complaint"] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

/** A UTC day's mail, for the rates a provider watches: sent, answered by a throttle, bounced for good, complained of. */
export interface MailDay {
  day: string;
  sent: number;
  throttled: number;
  bounced: number;
  complained: number;
}
export type MailCounts = Omit<MailDay, "day">;

/** What a departure keeps: when and how, never who; a keyed digest only of a confirmed member (leavers.ts). */
export interface Departure {
  how: DepartureKind;
  at: string;
  digest?: string;
}
