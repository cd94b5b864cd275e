import { maskEmail } from "../email-address";
import { suppressionRetentionMs, type MailKind, type NotMailed } from "../signup-life/rules";
import type { MailBookkeeping } from "../stores/store";
import { fingerprintKeyOf, type KeepsSecrets } from "../fingerprints";
import { suppress, suppressedUntil } from "../suppressions";
import type { MailMessage } from "./confirmation-message";
import type { Mailer } from "./mailer";
import {
  paceWait,
  takeWaiting,
  type HoldReason,
  type MailPace,
  type MailSent,
  type PaceOutcome,
  type PaceRefusal,
} from "./pace";
import { mailErrorReason } from "./redact";
import { classifyMailFailure, type MailFailure } from "./replies";

/*
 * The one way out for every message: the only caller of the mailer's send. A confirmation, a wave's "You're in" and a
 * policy's announcement each say whom and what (a Lane: how the person is taken in the store, the message, and how
 * each outcome is recorded through the signup's transitions); this file does, once for all of them: claim, the rule
 * of who may be mailed (signup-life's whyNotMailed, then the suppressions by key), the start from the provider's pace,
 * the send, what the reply says (replies.ts) and the record of it. The founders' digest, to the founders and not to a
 * person of the list, goes through sendToFounders below: the pace, the send and the reply, nothing of a person's.
 *
 * A refusal for good of the recipient suppresses the address, as a bounce reported later would (suppressions.ts): once
 * the refused signup's 30 days are over, a new signup of it is not mailed again. An outcome nobody knows (the
 * connection dropped after the message went) is recorded as such: a "You're in" or an announcement is never sent a
 * second time, a confirmation may be, with the same Message-ID.
 */

export interface Addressee {
  email: string;
  emailKey: string;
}

/** Why a refusal was made without sending: the rule, the lane's own check (the mailbox's daily cap), or the server. */
export type RefusedBy = NotMailed | "gate" | "recipient";

/** What one kind of message says: whom it takes, what it sends, and how each outcome is recorded. */
export interface Lane<P extends Addressee> {
  kind: MailKind;
  /**
   * Takes the person's message in the store, so that no other sender sends it: the attempt's number; "not-ours" when
   * another sender holds it or it was sent or failed meanwhile; or why the rule says it may not go (then `refused`).
   */
  claim(person: P): Promise<number | NotMailed | "not-ours">;
  /** A check of the lane's own after the claim, just before the message: a reason to refuse it without sending. */
  gate?(person: P, attempt: number): Promise<string | undefined>;
  message(person: P): MailMessage;
  sent(person: P): Promise<void>;
  /** Not to be sent, ever (a refusal for good, or the rule); `by` says whose word it was. */
  refused(person: P, reason: string, by: RefusedBy): Promise<void>;
  /** Failed for now: due again on the retry schedule after attempt number `attempt`. */
  retry(person: P, reason: string, attempt: number): Promise<void>;
  /** Given back, due again at `due`: the provider asked every sender to wait, or no start came in time. */
  held(person: P, reason: string, due: Date, counted: boolean): Promise<void>;
  /** It may have gone: the connection dropped after the message was sent. */
  unknown(person: P, reason: string): Promise<void>;
}

/** What one message came to. */
export type Sent =
  | { outcome: "sent" }
  /** Another sender holds it, or it was sent, refused or left meanwhile. */
  | { outcome: "not-ours" }
  /** The rule said no (NotMailed), or the lane's own check: recorded as refused, nothing sent. */
  | { outcome: "not-mailed"; why: NotMailed | "gate"; reason: string }
  /** Failed for now; due again later. */
  | { outcome: "retry"; reason: string }
  /**
   * Not sent: the provider asked every sender to wait until `until` (ms), or no start came in time ("busy");
   * `replied` when the server's own reply said so (`reason` is then its words).
   */
  | { outcome: "held"; until: number; reason: string; hold: PaceRefusal["reason"]; replied?: boolean }
  /** Its start came past the caller's time, or the sender was closed: given back untried. */
  | { outcome: "late" }
  /** Refused for good by the mail server: never tried again, and the address suppressed. */
  | { outcome: "refused"; reason: string }
  /** Nobody knows whether it arrived: recorded so, never sent again but a confirmation. */
  | { outcome: "unknown"; reason: string };

export interface SenderOptions {
  store: Pick<MailBookkeeping, "suppressedUntil" | "suppress"> & KeepsSecrets;
  mailer: Pick<Mailer, "send">;
  pace: MailPace;
  /** What the suppressions' fingerprints are keyed with (suppressions.ts). */
  secret: string;
  clock?: () => Date;
  wait?: (ms: number) => Promise<void>;
}

export interface SendOptions {
  /** Tries through a hold of the server down: a founder's run, or resend-pending, after putting the server right. */
  probe?: boolean;
  /** A confirmation's start no later than this (ms): past it, it is given back for a sender with time. */
  takeBy?: number;
  /** No message starts past this (ms): given back untried ("late"). */
  startBy?: number;
  /** A founder's Ctrl-C: no more waiting. */
  stopped?: () => boolean;
}

/** The hold's reason as a person reads it in a record's error. */
const heldReason = (reason: PaceRefusal["reason"]) =>
  reason === "busy"
    ? "not sent yet: the provider's pace is taken"
    : reason === "reserve"
      ? "held back for the confirmations' reserve"
      : `held: ${reason}`;

/** The words kept of a rule's no, in the record and the founders' lines. */
export const notMailedWords: Record<NotMailed, string> = {
  left: "not sent: no longer on the list",
  restricted: "not sent: the entry is restricted",
  undeliverable: "not sent: mail to this member bounced for good",
  "let-in": "not sent: let in already",
  "already-sent": "not sent: sent already",
  "not-member": "not sent: not a confirmed member",
  suppressed: "not sent: mail to this mailbox bounced or was marked as spam",
};

export function createSender({
  store,
  mailer,
  pace,
  secret,
  clock = () => new Date(),
  wait = paceWait,
}: SenderOptions) {
  let closed = false;
  const now = () => clock().getTime();

  /**
   * A start from the pace: a confirmation's (and the digest's) within its time, or it is given back for a sender with
   * time; a founder's message's through a throttle's short hold, as their run waits for each in turn.
   */
  const start = (kind: MailKind, { probe = false, takeBy, stopped = () => false }: SendOptions) =>
    kind === "wave" || kind === "announcement"
      ? takeWaiting(pace, { probe, stopped, wait, clock: now, kind })
      : pace.take({ probe, kind, maxWaitMs: takeBy === undefined ? undefined : Math.max(0, takeBy - now()) });

  /** The address the server refused for good is not mailed again for the suppression's time, as after a bounce. */
  async function suppressRefused(emailKey: string) {
    const key = await fingerprintKeyOf(store, secret);
    await suppress(store, key, emailKey, "bounce", new Date(now() + suppressionRetentionMs));
  }

  /**
   * One message to one person, once: see the file's header. A confirmation is claimed first and takes its start last,
   * just before the message (the store's work would otherwise put the message in another of the provider's seconds
   * than its start); a founder's message takes its start first and the person only with it in hand, so that nobody
   * sits taken while waiting for a start (a run stopped then would leave them "sending", never sent).
   */
  async function sendOnce<P extends Addressee>(lane: Lane<P>, person: P, options: SendOptions): Promise<Sent> {
    const { startBy = Infinity } = options;
    const startFirst = lane.kind !== "confirmation";
    let ticket = startFirst ? await start(lane.kind, options) : undefined;
    if (ticket && !ticket.go)
      return { outcome: "held", until: ticket.until, reason: heldReason(ticket.reason), hold: ticket.reason };
    let told: PaceOutcome = "unused";
    let timing: MailSent | void = undefined;
    try {
      const claim = await lane.claim(person);
      if (claim === "not-ours") return { outcome: "not-ours" };
      const heldUntil =
        typeof claim === "string" ? undefined : await suppressedUntil(store, secret, person.emailKey, clock());
      const why = typeof claim === "string" ? claim : heldUntil === undefined ? undefined : "suppressed";
      if (why !== undefined) {
        const reason =
          heldUntil === undefined
            ? notMailedWords[why]
            : `${notMailedWords[why]}; held until ${heldUntil.slice(0, 10)}`;
        await lane.refused(person, reason, why);
        return { outcome: "not-mailed", why, reason };
      }
      const attempt = claim as number;
      if (!ticket) {
        ticket = await start(lane.kind, options);
        if (!ticket.go) {
          // Given back, no attempt counted: nothing reached the provider. Due at once when only the pace was taken or
          // the provider asked for a moment (a sender with the time waits for it); at the hold's end for a quota or
          // the server down, so that no sweep reads it before then.
          const reason = heldReason(ticket.reason);
          const due = ticket.reason === "busy" || ticket.reason === "throttle" ? now() : ticket.until;
          await lane.held(person, reason, new Date(due), false);
          return { outcome: "held", until: ticket.until, reason, hold: ticket.reason };
        }
      }
      // Its start came past the caller's time (a connection is free only as the messages before it end), or once the
      // sender was closed: given back untried, for the next sender.
      if (closed || now() > startBy) {
        await lane.held(person, "not sent yet: its turn came too late", clock(), false);
        return { outcome: "late" };
      }
      const gated = await lane.gate?.(person, attempt);
      if (gated !== undefined) {
        await lane.refused(person, gated, "gate");
        return { outcome: "not-mailed", why: "gate", reason: gated };
      }
      try {
        timing = await mailer.send(lane.message(person), ticket.connection);
      } catch (error) {
        // The server's reply, which may quote the address, is kept and logged without it (redact.ts).
        const reason = mailErrorReason(error, person.email);
        const kind = classifyMailFailure(error);
        told = paceOutcomeOf(kind);
        if (kind === "recipient") {
          await suppressRefused(person.emailKey);
          await lane.refused(person, reason, "recipient");
          return { outcome: "refused", reason };
        }
        if (kind === "unknown") {
          await lane.unknown(person, reason);
          return { outcome: "unknown", reason };
        }
        if (kind === "transient") {
          await lane.retry(person, reason, attempt);
          return { outcome: "retry", reason };
        }
        // A throttle, a quota, the sending refused or the server down: every sender holds as the pace says. Given
        // back with its attempt counted (its mailbox's day was, and is not counted again), never a failure that waits
        // on the retry schedule.
        const until = (await ticket.done(told)) ?? now();
        const hold = told as HoldReason;
        await lane.held(person, reason, new Date(hold === "throttle" ? now() : until), true);
        return { outcome: "held", until, reason, hold, replied: true };
      }
      told = "sent";
      // Its connection free for the next message before the store's write.
      await ticket.done(told, timing);
      await lane.sent(person);
      return { outcome: "sent" };
    } finally {
      if (ticket?.go) await ticket.done(told, timing);
    }
  }

  /**
   * One message to one person (sendOnce); a founder's message is tried again after a throttle's short hold, which its
   * next start waits out.
   */
  async function send<P extends Addressee>(lane: Lane<P>, person: P, options: SendOptions = {}): Promise<Sent> {
    for (;;) {
      const done = await sendOnce(lane, person, options);
      const again = lane.kind !== "confirmation" && done.outcome === "held" && done.hold === "throttle";
      if (!again || closed || options.stopped?.()) return done;
    }
  }

  return {
    send,
    /** Starts no more messages: those under way end, and a start that comes after is given back untried. */
    close() {
      closed = true;
    },
  };
}

export type Sender = ReturnType<typeof createSender>;

/** What a reply means to the pace (pace.ts): every sender holds as the provider asked. */
const paceOutcomeOf = (kind: MailFailure): PaceOutcome =>
  kind === "recipient" ? "refused" : kind === "sending" ? "down" : kind === "unknown" ? "transient" : kind;

/**
 * A message to the founders (the daily digest), not to a person of the list: a start from the pace, through a hold of
 * the server down, the send, and the reply told to the pace. Where the pace holds every sender (a quota, a throttle)
 * it goes all the same, uncounted: the digest is what tells the founders the mail is held, one message a day, and the
 * provider alone says whether it takes it. A refusal is thrown for the caller's log.
 */
export async function sendToFounders(
  message: MailMessage,
  { mailer, pace }: Pick<SenderOptions, "mailer" | "pace">,
): Promise<void> {
  const ticket = await pace.take({ probe: true, maxWaitMs: 0 });
  let told: PaceOutcome = "unused";
  let timing: MailSent | void = undefined;
  try {
    timing = await mailer.send(message, ticket.go ? ticket.connection : undefined);
    told = "sent";
  } catch (error) {
    told = paceOutcomeOf(classifyMailFailure(error));
    throw error;
  } finally {
    if (ticket.go) await ticket.done(told, timing);
  }
}

/** A masked line for the founders: whose, and why, naming nobody in full. */
export const maskedLine = (person: Addressee, reason: string) => `${maskEmail(person.email)}: ${reason}`;
