/*
 * What a mail server's or a mail API's refusal means, read for whom it is about: the recipient's address, the
 * recipient's mailbox, or the sending itself (the account, its credentials, its sender, its policy). Only a reply about
 * the address refuses a person for good: a relay that wants authentication answers every recipient of a
 * misconfigured hour with a 5xx to RCPT TO, and a rule that read the reply code alone refused every signup of that hour
 * for good. A reply is read by RFC 3463's enhanced status code first (X.1 the address, X.2 the mailbox, X.3 the mail
 * system, X.4 the network, X.5 the protocol, X.6 the content, X.7 security and policy), the providers' documented
 * words second, the reply code and the command it answers last. The texts matched here are the providers' own
 * (replies.test.ts cites each); docs/mail.md says what each class does.
 */

/**
 * - throttle: the provider asks to slow down; send again soon (SES drops the message it answers so: it must be sent
 *   again), never a failure that waits an hour, never a refusal for good;
 * - quota: a daily quota is used up; stop sending until quotaEndsAt, and mark nobody refused;
 * - recipient: this recipient's address is refused for good: X.1 (but the sender's X.1.7 and X.1.8) to its RCPT TO or
 *   its message, or a provider's documented words for an address that does not exist or that it suppresses;
 * - sending: the sending is refused, not the person: credentials (530, 535), the sender (not verified, relaying
 *   denied), a policy (X.7), the message as a whole, the server unreachable. It holds every sender and tells the
 *   founders what to fix; it refuses nobody;
 * - transient: this one message failed and may pass later: a 4xx, the mailbox's X.2 (full, disabled, over quota) even
 *   as a 5xx, a connection lost before the whole message was handed over, a 5xx to RCPT TO that says nothing more;
 * - unknown: the connection was lost, or timed out, after the whole message was handed over and before the server's
 *   reply: the provider may have taken it. Never send again what a person would mind twice ("You're in", an
 *   announcement): record it as sent, outcome unknown, and tell the founders how many. A confirmation may go once more
 *   with the same Message-ID: a second copy says the same and threads with the first.
 */
export type MailFailure = "throttle" | "quota" | "recipient" | "sending" | "transient" | "unknown";

/**
 * What an HTTP mail API answered, in its own words: Resend's JSON `{ statusCode, name, message }` (429 with name
 * "rate_limit_exceeded"), Postmark's `{ ErrorCode, Message }` under HTTP 422 (errorCode 406: an inactive recipient).
 */
export interface ApiFailure {
  status: number;
  name?: string;
  message?: string;
  /** Postmark's ErrorCode: its own numbers, not HTTP's. */
  errorCode?: number;
}

/** What nodemailer says of a failed send: the SMTP command it failed at, the server's reply, its own code. */
interface SmtpFailure {
  command?: unknown;
  responseCode?: unknown;
  response?: unknown;
  code?: unknown;
  message?: unknown;
  /** nodemailer's name for the timer that ran out (CONNECT_TIMEOUT, GREETING_TIMEOUT, SOCKET_TIMEOUT). */
  timeoutType?: unknown;
  /** The system's code under nodemailer's (ECONNREFUSED under ESOCKET). */
  originalCode?: unknown;
  /** The mailer's mark: the whole message was handed to the connection before it failed (handed-over.ts). */
  messageHandedOver?: unknown;
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
 * Words about the sending, whatever the code and the command: Postfix refuses the sender and the relay at RCPT TO
 * (smtpd_delay_reject) in replies that also say "Recipient address rejected", and SES refuses an unverified sender
 * after DATA with no enhanced code at all.
 */
const aboutTheSending = [
  /relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited)/i,
  /mail relay denied/i,
  /unable to relay/i,
  /invalid credentials for relay/i,
  /sender address rejected/i,
  /client host rejected/i,
  /not authenticated/i,
  /authentication (?:required|credentials invalid|failed|unsuccessful)/i,
  /(?:address|domain|identity|identities) (?:is |are )?not verified/i,
  /not a verified sender/i,
  /sender signature not (?:found|confirmed)/i,
  /permissions? to send as/i,
];

/** Words about the recipient's address, from servers that give no enhanced code or only X.0. */
const aboutTheAddress = [
  /user unknown/i,
  /unknown user/i,
  /no such (?:user|mailbox|recipient)/i,
  /account that you tried to reach does not exist/i,
  /recipient not found|RecipientNotFound|RecipNotFound/i,
  /invalid rcpt to address/i,
  /inactive recipient|marked as inactive/i,
];

/** RFC 3463's code after the reply code ("550 5.1.1 ...", "550-5.7.1 ..."): its subject and detail. */
function enhancedCode(reply: string): { subject: number; detail: number } | undefined {
  const match = /^\d{3}[ -][245]\.(\d{1,3})\.(\d{1,3})(?!\d)/.exec(reply.trim());
  return match ? { subject: Number(match[1]), detail: Number(match[2]) } : undefined;
}

/** A reply to a command about the sending alone: the greeting, EHLO, AUTH, MAIL FROM. */
const sendersCommand = (command: unknown) => typeof command === "string" && command !== "RCPT TO" && command !== "DATA";

/**
 * A 5xx: by its enhanced code, then by its words. One that says nothing more, to RCPT TO: transient. RFC 5321 (4.2.2)
 * gives 550 for "mailbox not found, no access, or command rejected for policy reasons" alike: it is no evidence against
 * the address, and refusing a person for good needs evidence. Retried on the schedule, it refuses nobody; when it is
 * the sending's after all (every recipient answered alike), five in a row hold every sender (pace.ts).
 */
function classifyPermanent(command: unknown, replyCode: number, reply: string): MailFailure {
  if (senderStopped.test(reply) || aboutTheSending.some((pattern) => pattern.test(reply))) return "sending";
  if ([530, 534, 535, 538].includes(replyCode) || sendersCommand(command)) return "sending";
  const enhanced = enhancedCode(reply);
  if (enhanced) {
    const { subject, detail } = enhanced;
    // X.1.7 and X.1.8: the sender's address and its domain.
    if (subject === 1) return detail === 7 || detail === 8 ? "sending" : "recipient";
    if (subject === 2) return "transient";
    // X.3.4: the message is too big for the system, and every message is about as big.
    if (subject === 3) return detail === 4 ? "sending" : "transient";
    if (subject === 4) return "transient";
    if (subject === 6 || subject === 7) return "sending";
  }
  if (aboutTheAddress.some((pattern) => pattern.test(reply))) return "recipient";
  // The message as a whole (DATA), or a reply with no command: every message fares alike.
  return command === "RCPT TO" ? "transient" : "sending";
}

/** nodemailer's codes for a server it cannot reach or talk to at all: the next message fares no better. */
const unreachable = new Set(["EDNS", "EAUTH", "ENOAUTH", "ETLS"]);
/** The system's codes of a connection never made (under nodemailer's ESOCKET or ECONNECTION). */
const neverConnected = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;
/** The timers of a connection's start: no answer at all from the server. */
const startTimeouts = new Set(["CONNECT_TIMEOUT", "GREETING_TIMEOUT", "UPGRADE_TIMEOUT"]);
/** nodemailer's codes of a connection lost or silent midway. */
const connectionLost = new Set(["ECONNECTION", "ESOCKET", "ETIMEDOUT"]);

/** A failure with no reply from the server: how far the conversation had gone says what it means. */
function classifyWithoutReply(failure: SmtpFailure, text: string): MailFailure {
  const { code, timeoutType, originalCode, messageHandedOver } = failure;
  if (typeof code !== "string") return "transient";
  if (unreachable.has(code)) return "sending";
  if (!connectionLost.has(code)) return "transient";
  if (messageHandedOver === true) return "unknown";
  if (neverConnected.test(`${String(originalCode)} ${text}`)) return "sending";
  const timer = typeof timeoutType === "string" ? timeoutType : "";
  if (startTimeouts.has(timer) || /greeting never received|connection timeout/i.test(text)) return "sending";
  // Reset, closed or silent midway, the message not all sent: this message's failure. Several in a row hold every
  // sender (pace.ts), as a provider that is down does.
  return "transient";
}

function apiFailure(error: unknown): ApiFailure | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const candidate = error as Record<string, unknown>;
  if (candidate.command !== undefined) return undefined;
  const status = candidate.status ?? candidate.statusCode;
  const errorCode = candidate.errorCode ?? candidate.ErrorCode;
  if (typeof status !== "number" && typeof errorCode !== "number") return undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return {
    // Postmark's ErrorCode comes under HTTP 422 (429 for its rate).
    status: typeof status === "number" ? status : errorCode === 429 ? 429 : 422,
    name: text(candidate.name),
    message: text(candidate.message) ?? text(candidate.Message),
    errorCode: typeof errorCode === "number" ? errorCode : undefined,
  };
}

/** Postmark's ErrorCodes about the recipient: 406, a recipient it made inactive (a hard bounce, a complaint). */
const postmarkRecipient = new Set([406]);
/** Postmark's that may pass: 100, its maintenance. */
const postmarkTransient = new Set([100]);

/**
 * An API's refusal, by whom it is about. Postmark's 300 ("Invalid email request") and Resend's validation_error are
 * about the recipient only where their words name the To address; an invalid From is the sending's.
 */
export function classifyApi({ status, name = "", message = "", errorCode }: ApiFailure): MailFailure {
  const words = `${name} ${message}`;
  // Resend's daily_quota_exceeded; a monthly quota too, stopping a day at a time until its month is over.
  if (status === 429 || errorCode === 429) return /quota/i.test(words) ? "quota" : "throttle";
  if (errorCode !== undefined && postmarkRecipient.has(errorCode)) return "recipient";
  if (errorCode !== undefined && postmarkTransient.has(errorCode)) return "transient";
  if (status >= 500 || status === 408 || status === 409) return "transient";
  if (status < 400) return "transient";
  if (aboutTheSending.some((pattern) => pattern.test(words))) return "sending";
  // Postmark: "Invalid 'To' address: ..."; Resend: "Invalid `to` field. The email address needs to follow ...".
  if (/invalid\s*['"`]?to['"`]?\s*(?:address|field)/i.test(words)) return "recipient";
  if (aboutTheAddress.some((pattern) => pattern.test(words))) return "recipient";
  // 400, 401, 403, 422: the key, the sender's domain or the message itself; every later message fares alike.
  return "sending";
}

/** What a failed send means, and whom it is about: see MailFailure. Pure: reads the error, nothing else. */
export function classifyMailFailure(error: unknown): MailFailure {
  const api = apiFailure(error);
  if (api) return classifyApi(api);
  const failure = (error ?? {}) as SmtpFailure;
  const { command, responseCode, response, message } = failure;
  const reply = typeof response === "string" ? response : "";
  const text = [response, message].filter((part) => typeof part === "string").join("\n");
  const replyCode = typeof responseCode === "number" ? responseCode : undefined;
  if (dailyQuota.some((pattern) => pattern.test(text))) return "quota";
  if (replyCode !== undefined && replyCode >= 400 && replyCode < 500) {
    // 421: the server closes the channel (RFC 5321, 3.8); providers say it at their connection limit.
    if (replyCode === 421 || slowDown.some((pattern) => pattern.test(text))) return "throttle";
    // Temporary, but about the sending (Postfix's 454 4.7.1 Relay access denied): no later message fares better.
    return aboutTheSending.some((pattern) => pattern.test(text)) ? "sending" : "transient";
  }
  if (replyCode !== undefined && replyCode >= 500 && replyCode < 600) {
    return classifyPermanent(command, replyCode, reply || text);
  }
  return classifyWithoutReply(failure, text);
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
