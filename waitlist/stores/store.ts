import type { Attribution } from "../attribution";
import type { StatsSignup } from "../reports/stats";
import type { LetInMailStep } from "../signup-life/signup-life";

/*
 * The one store interface of the waitlist, in three parts by what they may
 * cost. Every deployment has a store that implements all three: SQLite,
 * Postgres or Netlify Blobs (README.md says which deployment uses which); one
 * contract suite runs against each (store.contract.ts).
 *
 *   WaitlistStore      what a request may do: read and write one address by
 *                      its key. Constant work, whatever the list's size.
 *   ConfirmationQueue  what the sweep needs: the confirmations still owed.
 *                      Work grows with that backlog, never with the list.
 *   WaitlistLedger     the founders' commands: whole-list reads.
 *   AnnouncementLog    what announce-policy-change records of each person
 *                      it mails, by key, so no run mails anyone twice.
 *
 * A request path is handed a WaitlistStore only, so it cannot read the list. What a store does to a signup is a
 * transition of ../signup-life/signup-life.ts, applied by record-keeper.ts: a store keeps records, not rules.
 */

/** Where a signup was taken: npm start, gatsby develop, or Netlify's function. */
/** Where a signup came from: npm start, gatsby develop, Netlify's production deploy, or one of its previews. */
export type SignupSource = "develop" | "start" | "netlify" | "netlify-preview";

/**
 * How an address left: the page's button, a mail client's one-click POST, the operator's command, or pruned
 * because it was never confirmed (prune.ts).
 */
export type DepartureKind = "link" | "one-click" | "operator" | "pruned";

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
  mailbox?: string;
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

/** One signup as every store keeps it. */
export interface Signup extends Attribution {
  email: string;
  emailKey: string;
  /** UTC, ISO 8601. */
  createdAt: string;
  source: SignupSource;
  /** When the confirmation e-mail was handed to the mail server; null while it is owed. */
  confirmationSentAt: string | null;
  /** When the mail server refused the address for good (a 5xx reply); no more attempts are made. */
  confirmationFailedAt: string | null;
  /** The mail server's last error for this address, if any. */
  confirmationError: string | null;
  /**
   * The confirmation failed because its mailbox had had its day's e-mails (mail/mailbox.ts), not because the mail
   * server refused it: a repeat signup a day later asks again.
   */
  confirmationCapped: boolean;
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
  mailbox: string | null;
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
  /** When the person objected to being ranked by the creators they invited (object-to-ranking); null if never. */
  rankingObjectedAt: string | null;
}

/**
 * A wave's e-mail to one person: owed; taken by a run and being sent (a run that stopped then leaves it so, unsure,
 * rather than risk mailing twice); sent; refused for good by the mail server; or mailed by the launch tool instead.
 */
export type LetInMail = "owed" | "sending" | "sent" | "refused" | "launch-tool";

/** What a link's page needs to know of one listed address. */
export interface ListedSignup {
  email: string;
  createdAt: string;
  confirmedAt: string | null;
  /** Its invite code, once confirmed. */
  inviteCode: string | null;
  /**
   * How many have signed up through its invite link and confirmed, now: one per mailbox, never its own, none who
   * left or were pruned (invites.ts). Read by the code's key, never from the list.
   */
  confirmedInvites: number;
}

/** An address owed its confirmation e-mail. */
export interface OwedConfirmation {
  email: string;
  emailKey: string;
  createdAt: string;
  /**
   * Since when the asking under way runs: each asking is a message of its own. The first asking is
   * Signup.optInSince, which the retention counts from; a repeat signup's asking starts later and never moves it.
   */
  optInSince: string | null;
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

export interface ConfirmationCounts {
  sent: number;
  /** Still owed: not sent, not failed for good. */
  pending: number;
  failed: number;
}

/** A store that cannot be opened or used as it is; its message says what to do. */
export class StoreError extends Error {}

export interface WaitlistStore {
  /**
   * Stores a signup unless its key is already listed; the first signup of an
   * address is the one kept, with its attribution. A new address is owed a
   * confirmation. Durable once it resolves.
   */
  add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }>;
  /**
   * Counts one confirmation e-mail to a mailbox on a UTC day (mailbox.ts: its counter key, and the day as
   * YYYY-MM-DD) and resolves with that day's count, this one included: one atomic step, so two senders never
   * both see the same count.
   */
  countMailboxMail(counter: string, day: string): Promise<number>;
  /**
   * Takes the right to send one address's confirmation until `now + leaseMs`,
   * so that two senders never both send it. Resolves with this attempt's
   * number (1 for the first), or undefined when it was sent already, failed
   * for good, is held by another sender, or the address is not listed.
   */
  claimConfirmation(emailKey: string, options: { now: Date; leaseMs: number }): Promise<number | undefined>;
  /** The listed signup of an address; undefined when it is not listed. */
  lookup(emailKey: string): Promise<ListedSignup | undefined>;
  /**
   * Records that the person confirmed the signup stored at `createdAt`, under
   * the Privacy Policy then in force. The first confirmation is the one kept:
   * `first` says whether this was it. Undefined when the address is not listed,
   * or listed by another signup than the one the link was for.
   */
  confirm(
    emailKey: string,
    confirmation: Confirmation,
  ): Promise<{ confirmedAt: string; first: boolean; inviteCode: string } | undefined>;
  /**
   * Asks a signup to confirm from `at` on: it is owed a confirmation e-mail with the confirm link, and removed if it
   * never confirms. One from before the confirm step, never asked, is asked (ask-to-confirm; a repeat signup). With
   * `resendAfterMs` (a repeat signup), one asked before is asked again once its last e-mail went out that long ago:
   * the person may have lost it. Resolves with the confirmation now owed; undefined when the address is not listed,
   * confirmed, refused for good by the mail server (with `resendAfterMs`), still owed its e-mail, or mailed too
   * recently. One not sent because its mailbox had its day's e-mails (`capped`) counts as mailed then.
   */
  askToConfirm(emailKey: string, at: Date, options?: { resendAfterMs?: number }): Promise<OwedConfirmation | undefined>;
  /** The confirmation went out: the mail with the confirm link. A signup not asked before is asked since then. */
  markConfirmationSent(emailKey: string, at: Date): Promise<void>;
  /** Gives a claim back after a failure that may pass, keeping the error; the next attempt is due at `retryAt`. */
  releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void>;
  /**
   * No more attempts; the error stays for the operator. The mail server refused the address for good, or, with
   * `capped`, its mailbox had its day's confirmation e-mails: then a repeat signup a day later asks again.
   */
  failConfirmation(emailKey: string, error: string, at: Date, options?: { capped?: boolean }): Promise<void>;
  /**
   * Deletes every record of one address, with any confirmation still owed,
   * and counts the departure (when and how, never who). With `digest`, the
   * departure keeps that keyed digest of the address (waitlist/leavers.ts)
   * until forgetLeaverDigestsBefore: what matches a launch tool's members to
   * those who left. Resolves with what was removed; undefined when the address
   * was not listed.
   */
  remove(
    emailKey: string,
    how: DepartureKind,
    at: Date,
    digest?: string,
  ): Promise<{ email: string; createdAt: string } | undefined>;
  /** A secret kept in the store: made with `make` on first use, the same ever after. */
  secret(name: "leave", make: () => string): Promise<string>;
  /**
   * Records that `name` was done (the founders' digest of a day), once: true for the first caller, false for every
   * caller after, whatever the number of servers or function instances.
   */
  once(name: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface ConfirmationQueue {
  /**
   * Owed confirmations a sender may try at `now`: nobody holds them, and any retry is due. At most `limit`, oldest
   * first of those it found: SQL finds the oldest by its index; Netlify Blobs reads a batch's worth of records along
   * a walk of its backlog, so a sweep's work grows with what it sends, never with what is owed. None means none is
   * due; on Blobs, none along the rest of its walk read until `readUntil` (ms), past a batch's worth that found none.
   */
  dueConfirmations(now: Date, limit: number, options?: { readUntil?: number }): Promise<OwedConfirmation[]>;
  /** Every owed confirmation, due or not (resend-pending), oldest first. */
  pendingConfirmations(): Promise<OwedConfirmation[]>;
  /**
   * Signups asked to confirm before `before` that never did, at most `limit`, those asked first first: what the
   * retention removes (prune.ts). Work grows with them, never with the list. It only reads, unless `tidy`: then
   * the store may also drop its own bookkeeping of signups that are done with (the Blobs store's stale notes), as a
   * removing pass does; a dry run never tidies.
   */
  expiredUnconfirmed(before: Date, limit: number, options?: { tidy?: boolean }): Promise<UnconfirmedSignup[]>;
  /**
   * Removes signups expiredUnconfirmed found, each as a leave counted as "pruned", unless it confirmed or was asked
   * again since. Resolves with those removed.
   */
  removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]>;
  /**
   * Drops the counts of the days before `day` (the retention's pass does, never a dry run). A store whose clean-up
   * is one request at a time stops at `deadline` (ms), and the next pass goes on.
   */
  forgetMailboxMailBefore(day: string, options?: { deadline?: number }): Promise<void>;
  /** Drops the digests of those who left before `before`: the departures stay, counted, naming nobody. As above. */
  forgetLeaverDigestsBefore(before: Date, options?: { deadline?: number }): Promise<void>;
  /**
   * Brings the store's own bookkeeping up to date, starting no step past `deadline` (ms), for the scheduled runs:
   * Netlify Blobs files its backlog into the founders' ledger and carries records of an earlier layout forward
   * (blobs/ledger.ts, blobs/earlier-layout.ts); SQL keeps none. Without `tidy` (the five-minute sweep) it leaves old
   * notes for the day's pass. Resolves with the rows it wrote.
   */
  fold(options?: { deadline?: number; tidy?: boolean }): Promise<number>;
}

export interface WaitlistLedger {
  count(): Promise<number>;
  confirmationCounts(): Promise<ConfirmationCounts>;
  /** Addresses the mail server refused for good, with its error. */
  failedConfirmations(): Promise<{ email: string; failedAt: string; error: string }[]>;
  /** The mail server's words on the most recent confirmation that failed, for good or for now. */
  lastConfirmationError(): Promise<string | undefined>;
  /** How many addresses have left the list. */
  departures(): Promise<number>;
  /**
   * The same, told apart: those who left (a link, a mail client, the operator) and those pruned unconfirmed; with
   * `between`, only the departures from `from` (included) to `to` (excluded).
   */
  departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }>;
  /** The digests kept of those who left since `since` (waitlist/leavers.ts), oldest first. */
  leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]>;
  /** What `stats` needs of every signup, and no more. */
  statsRows(): Promise<StatsSignup[]>;
  /** Every signup, oldest first. */
  all(): Promise<Signup[]>;
}

export interface AnnouncementLog {
  /**
   * Notes that the announcement `id` (a policy's change, cli/commands/announce.ts: letters, digits and `-`) goes to
   * the confirmed signup of `emailKey`, before it is sent: true for the first caller, false when it was noted for
   * that signup before (a run of the same announcement, finished or stopped half-way) or the address is not listed
   * or not confirmed. One atomic step, so two runs at once never both take one person. With `undo`, takes the note
   * back after a send that failed: true when there was one. The notes are kept with the signup and go with it.
   */
  noteAnnouncement(emailKey: string, id: string, options?: { undo?: boolean }): Promise<boolean>;
}

export interface Waves {
  /**
   * Lets the confirmed signup of `emailKey` stored at `createdAt` in with wave `wave` at `at`: true for the first
   * caller; false when it is in a wave already, not listed, not confirmed, or listed by a newer signup. One atomic
   * step, so two runs at once never put one person in two waves. With `mail`, it is owed the wave's e-mail.
   */
  letIn(emailKey: string, wave: { wave: number; at: Date; createdAt: string; mail: boolean }): Promise<boolean>;
  /**
   * One step of the wave's e-mail to the signup of `emailKey` in wave `wave` (signup-life's letInMailStep): true
   * when it was made, false when the record was not at its start (another run took it, or the person left).
   */
  letInMail(emailKey: string, step: LetInMailStep, wave: number): Promise<boolean>;
  /**
   * Notes that the person of `emailKey` objected to being ranked by the creators they invited, at `at` unless noted
   * before: resolves with when it was noted (the first time), or undefined when the address is not listed.
   */
  objectToRanking(emailKey: string, at: Date): Promise<string | undefined>;
}

/** A deployment's whole store. */
export type FullStore = WaitlistStore & ConfirmationQueue & WaitlistLedger & AnnouncementLog & Waves;
