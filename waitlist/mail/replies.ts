/*
 * What a mail server's or a mail API's refusal means for the sending. A provider at its limits refuses in words of its
 * own, and some of them look like what they are not: Google refuses a RCPT TO with a 5xx when the *sender's* daily
 * relay limit is used up, which said "this recipient, for good" to a rule that read the reply code alone. The texts
 * matched here are the providers' documented ones (replies.test.ts cites each).
 */

/**
 * - throttle: the provider asks to slow down; send again soon (SES drops the message it answers so: it must be sent
 *   again), never a failure that waits an hour, never a refusal for good;
 * - quota: a daily quota is used up; stop sending until quotaEndsAt, and mark nobody refused;
 * - recipient: this recipient is refused for good (a 5xx to its RCPT TO that is about the recipient);
 * - sending: the sending failed, not one recipient (credentials, sender, the message, the server unreachable);
 * - transient: anything else that may pass (a 4xx, a connection dropped half-way);
 * - unknown: the message may have arrived (the connection dropped after it was sent, before the reply): a sender
 *   sends a confirmation once more with the same Message-ID, and never a second "You're in" or announcement.
 */
export type MailFailure = "throttle" | "quota" | "recipient" | "sending" | "transient" | "unknown";

/** What an HTTP mail API answered, in its own words (Resend: 429 with name "rate_limit_exceeded"). */
export interface ApiFailure {
  status: number;
  name?: string;
  message?: string;
}

/** What nodemailer says of a failed send: the SMTP command it failed at, the server's reply, its own code. */
interface SmtpFailure {
  command?: unknown;
  responseCode?: unknown;
  response?: unknown;
  code?: unknown;
  message?: unknown;
}

/** A daily quota, whatever the reply code and the command it answers (SES, Google, Microsoft 365). */
const dailyQuota = [
  /daily message (?:quota|limit) exceeded/i,
  /daily smtp relay limit exceeded/i,
  /daily user sending (?:quota|limit) exceeded/i,
  /SubmissionQuotaExceededException/i,
];

/** A 4xx that asks the sender to slow down, as opposed to one recipient's mailbox being busy or full. */
const slowDown = [
  /throttling failure/i,
  /maximum sending rate exceeded/i,
  /peak smtp relay limit exceeded/i,
  /too many concurrent (?:smtp )?connections/i,
  /concurrent connections? limit exceeded/i,
  /sender thread limit exceeded/i,
];

/** Microsoft 365 stops a mailbox that keeps failing ("550 5.2.252 Sender throttled due to continuous ..."). */
const senderStopped = /sender throttled/i;

/**
 * nodemailer's codes, without a reply, for a server it could not reach (refused, no such host, TLS), one that never
 * answered, or credentials it could not offer: the next message fares no better.
 */
const unreachable = new Set(["ESOCKET", "EDNS", "ETIMEDOUT", "EAUTH"]);

function apiFailure(error: unknown): ApiFailure | undefined {
  const candidate = error as { status?: unknown; command?: unknown } | null;
  return typeof candidate?.status === "number" && candidate.command === undefined
    ? (candidate as ApiFailure)
    : undefined;
}

function classifyApi({ status, name = "", message = "" }: ApiFailure): MailFailure {
  // Resend's daily_quota_exceeded; a monthly quota too, stopping a day at a time until its month is over.
  if (status === 429) return /quota/i.test(`${name} ${message}`) ? "quota" : "throttle";
  if (status >= 500 || status === 408 || status === 409) return "transient";
  // 400, 401, 403, 422: the key, the sender's domain or the message itself; every later message fares alike.
  return status >= 400 ? "sending" : "transient";
}

/** What a failed send means for the sending: see MailFailure. Pure: reads the error, nothing else. */
export function classifyMailFailure(error: unknown): MailFailure {
  const api = apiFailure(error);
  if (api) return classifyApi(api);
  const { command, responseCode, response, code, message } = (error ?? {}) as SmtpFailure;
  const reply = [response, message].filter((part) => typeof part === "string").join("\n");
  const replyCode = typeof responseCode === "number" ? responseCode : undefined;
  if (dailyQuota.some((pattern) => pattern.test(reply))) return "quota";
  if (replyCode !== undefined && replyCode >= 400 && replyCode < 500) {
    // 421: the server closes the channel (RFC 5321, 3.8); providers say it at their connection limit.
    return replyCode === 421 || slowDown.some((pattern) => pattern.test(reply)) ? "throttle" : "transient";
  }
  if (replyCode !== undefined && replyCode >= 500 && replyCode < 600) {
    return command === "RCPT TO" && !senderStopped.test(reply) ? "recipient" : "sending";
  }
  if (typeof code === "string" && unreachable.has(code)) return "sending";
  return "transient";
}

/** How long a daily quota counts its messages: every provider above documents a rolling 24 hours. */
export const quotaWindowMs = 24 * 60 * 60 * 1000;

/**
 * When sending may start again after a `quota` reply first came at `firstRefusalAt` (ms). Not the next UTC
 * midnight: SES, Google and Microsoft count a rolling 24 hours, so just after midnight the window may still be full,
 * and the next message would be refused again (SES drops it) and the stop would run to the midnight after, up to two
 * days. Twenty-four hours after the first refusal every message of the window has aged out: the first one sent then
 * cannot be refused for the quota, and the wait is never longer than a day.
 */
export function quotaEndsAt(firstRefusalAt: number): number {
  return firstRefusalAt + quotaWindowMs;
}
