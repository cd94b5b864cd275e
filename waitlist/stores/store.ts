import type { LetInMailStep } from "../signup-life/signup-life";
import type {
  Confirmation,
  ConfirmationCounts,
  DepartureCounts,
  DepartureKind,
  LetInSignup,
  ListedSignup,
  ListRow,
  MailCounts,
  MailDay,
  NewSignup,
  ObjectionKind,
  OwedConfirmation,
  RemovedSignup,
  Signup,
  SuppressionReason,
  UnconfirmedSignup,
  UndeliverableSignup,
} from "../signup-life/types";

/*
 * The one store interface of the waitlist, in parts by what they may cost. Every deployment has a store that
 * implements them all: SQLite, Postgres or Netlify Blobs (README.md says which deployment uses which); one contract
 * suite runs against each (store.contract.ts). The domain's types are signup-life's (../signup-life/types.ts).
 *
 *   WaitlistStore      what a request may do: read and write one address by its key. Constant work, whatever the
 *                      list's size.
 *   ConfirmationQueue  what the sweep and the retention need: the confirmations still owed, the signups expired.
 *                      Work grows with that backlog, never with the list.
 *   WholeListReads     the founders' commands: reads of the whole list, and every field of one signup by its key.
 *   AnnouncementLog    what announce-policy-change records of each person it mails, by key, so no run mails anyone
 *                      twice.
 *   Waves              the launch's waves: letting one in by key, its e-mail's steps, and the entries past their
 *                      wave that the retention deletes.
 *   PersonsRequests    an objection or a restriction a person asks for, carried out by key.
 *   MailBookkeeping    what the mail keeps: the fingerprints it must never reach, each day's figures, and the
 *                      senders' shared pace. By key, or a few rows a day.
 *
 * A request path is handed a WaitlistStore only, so it cannot read the list. What a store does to a signup is a
 * transition of ../signup-life/signup-life.ts, applied by record-keeper.ts: a store keeps records, not rules.
 */

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
  /**
   * Gives a claim back after a failure that may pass, keeping the error; the next attempt is due at `retryAt`. With
   * `uncounted`, the attempt does not count: the provider asked every sender to wait (mail/pace.ts).
   */
  releaseConfirmation(emailKey: string, error: string, retryAt: Date, options?: { uncounted?: boolean }): Promise<void>;
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
  /**
   * A secret kept in the store: made with `make` on first use, the same ever after. "leave": the links' secret when
   * WAITLIST_SECRET is not set; "fingerprint": the key of the fingerprints that outlive an entry (fingerprints.ts).
   */
  secret(name: StoreSecretName, make: () => string): Promise<string>;
  /**
   * Records that `name` was done (the founders' digest of a day, a provider's event), once: true for the first caller,
   * false for every caller after, whatever the number of servers or function instances.
   */
  once(name: string): Promise<boolean>;
  /** Takes back `name`'s note, when the work it guarded failed: the next once(name) is the first again. */
  forgetOnce(name: string): Promise<void>;
  /**
   * Drops the notes of once() whose name starts with `prefix`, made before `before` (the day's pass: a provider's
   * event ids, kept for their period only), stopping at `deadline` (ms) as the day's other passes do.
   */
  forgetOnceBefore(prefix: string, before: Date, options?: { deadline?: number }): Promise<void>;
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
   * Signups asked to confirm before `before` that never did (signup-life's expired), at most `limit`, those asked
   * first first: what the retention removes (prune.ts). Work grows with them, never with the list. Only reads.
   */
  expiredUnconfirmed(before: Date, limit: number): Promise<UnconfirmedSignup[]>;
  /**
   * The same, for a pass that removes them: a store may also drop, as it goes, its own bookkeeping of the signups it
   * passes that are done with (the Blobs store's notes of those that confirmed or left), so no pass reads them again.
   */
  expiredUnconfirmedTidying(before: Date, limit: number): Promise<UnconfirmedSignup[]>;
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
}

export interface WholeListReads {
  count(): Promise<number>;
  confirmationCounts(): Promise<ConfirmationCounts>;
  /** Addresses the mail server refused for good, with its error. */
  failedConfirmations(): Promise<{ email: string; failedAt: string; error: string }[]>;
  /** The mail server's words on the most recent confirmation that failed, for good or for now. */
  lastConfirmationError(): Promise<string | undefined>;
  /** How many addresses have left the list. */
  departures(): Promise<number>;
  /**
   * The same, told apart: those who left (a link, a mail client, the operator, a complaint), those pruned
   * unconfirmed, and those deleted after their wave; with `between`, only the departures from `from` (included) to
   * `to` (excluded).
   */
  departureCounts(between?: { from: Date; to: Date }): Promise<DepartureCounts>;
  /** The digests kept of those who left since `since` (waitlist/leavers.ts), oldest first. */
  leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]>;
  /** What the founders' figures need of every signup, and no more (reports/). */
  listRows(): Promise<ListRow[]>;
  /**
   * Every field of the listed signup of `emailKey`, as all() gives it, read by its key (the answer to one person's
   * access request, export --record --email): constant work, whatever the list's size. Undefined when not listed.
   */
  signup(emailKey: string): Promise<Signup | undefined>;
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
   * Those let in before `before` (signup-life's pastItsWave), at most `limit`, those let in first first: what the
   * retention after a wave removes. Work grows with them, never with the list; Netlify Blobs reads its ledger.
   */
  pastItsWave(before: Date, limit: number): Promise<LetInSignup[]>;
  /** Removes those pastItsWave found, each counted as "after-wave", unless restricted since. Resolves with them. */
  removeAfterWave(signups: readonly LetInSignup[], at: Date): Promise<{ email: string; createdAt: string }[]>;
  /**
   * Members undeliverable since before `before` (signup-life's pastUndeliverable), at most `limit`, the oldest bounce
   * first: what the retention after a bounce removes. Work grows with them, never with the list.
   */
  undeliverableBefore(before: Date, limit: number): Promise<UndeliverableSignup[]>;
  /** Removes those undeliverableBefore found, each counted as "undeliverable", unless changed since. Resolves with them. */
  removeUndeliverable(
    signups: readonly UndeliverableSignup[],
    at: Date,
  ): Promise<{ email: string; createdAt: string }[]>;
}

/** A person's rights over their entry, as the founders carry out a request (cli/commands/objections.ts). */
export interface PersonsRequests {
  /**
   * Notes that the person of `emailKey` objected to `to` (signup-life's object: attribution and invite cleared), at
   * `at` unless noted before: resolves with when it was noted (the first time), or undefined when not listed.
   */
  objectTo(emailKey: string, to: ObjectionKind, at: Date): Promise<string | undefined>;
  /** Restricts the entry from `at` (null: lifts it): resolves with when it began (null: none), or undefined. */
  restrict(emailKey: string, at: Date | null): Promise<{ restrictedAt: string | null } | undefined>;
}

export interface MailBookkeeping {
  /**
   * A bounce for good reported later by the provider: the signup of `emailKey` stored at `createdAt` (or whichever,
   * without it) is refused, or, a member, undeliverable (signup-life's bounce). Resolves with its state now;
   * undefined when the address is not listed.
   */
  markBounced(emailKey: string, error: string, at: Date): Promise<Signup["state"] | undefined>;
  /**
   * Keeps a keyed fingerprint of a mailbox the mail must never reach again until `until` (a later one wins): it
   * outlives the signup, so a new signup of it is answered as any other and not mailed until then. With `address`
   * (that one address's fingerprint), only that address of the mailbox is held, kept with the mailbox's by its key.
   */
  suppress(mailbox: string, until: Date, why: SuppressionReason, address?: string): Promise<void>;
  /**
   * Until when the mailbox is suppressed, or the one address of it when `address` is given, if either still is at
   * `at` (the later); one read by the mailbox's key.
   */
  suppressedUntil(mailbox: string, at: Date, address?: string): Promise<string | undefined>;
  /** Drops the fingerprints whose time ended before `before` (the day's pass), stopping at `deadline` as above. */
  forgetSuppressionsBefore(before: Date, options?: { deadline?: number }): Promise<void>;
  /** Adds to the figures of a UTC day (YYYY-MM-DD), atomically. */
  countMail(day: string, counts: Partial<MailCounts>): Promise<void>;
  /** The figures of the days from `from` on, oldest first; a day with none is not listed. */
  mailDays(from: string): Promise<MailDay[]>;
  /**
   * A JSON value the store keeps under `name` (the senders' shared pace, mail/pace.ts; Netlify's drain lease,
   * netlify/drain-start.ts), changed by compare-and-swap: `change` gets the value as read (undefined for none) and
   * returns the next, or undefined to write nothing; it may run again when another writer came first. Resolves with
   * what was written, or undefined.
   */
  swapSetting<T>(name: SettingName, change: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  readSetting<T>(name: SettingName): Promise<T | undefined>;
}

/** The secrets a store keeps (WaitlistStore.secret). */
export type StoreSecretName = "leave" | "fingerprint";

/** The settings the mail keeps in the store. */
export type SettingName = `mail-pace-${number}` | "drain";

/** A deployment's whole store. */
export type FullStore = WaitlistStore &
  ConfirmationQueue &
  WholeListReads &
  AnnouncementLog &
  Waves &
  PersonsRequests &
  MailBookkeeping;
