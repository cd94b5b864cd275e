import os from "node:os";
import { createMailer, isPermanentFailure, isSendingFailure } from "./mailer";
import { classifyMailFailure, quotaEndsAt, type MailFailure } from "./replies";
import { closedPort, startSmtpServer } from "../../test/support/smtp";

/** A refusal as nodemailer reports it: the command it failed at, the server's reply line, and its own code. */
function smtp(command: string, response: string) {
  const code = { "RCPT TO": "EENVELOPE", "MAIL FROM": "EENVELOPE", DATA: "EMESSAGE", CONN: "EPROTOCOL" }[command];
  return { command, response, responseCode: Number(response.slice(0, 3)), code: code ?? "EAUTH", message: response };
}

/** A reply of a provider's HTTP API, as its client hands it over: the HTTP status and the JSON body's fields. */
const api = (failure: Record<string, unknown>) => failure;

/** A failure nodemailer reports without a reply (its smtp-connection's _onError and _onClose), as it words them. */
function dropped(code: string, message: string, extra: Record<string, unknown> = {}) {
  return { code, command: "CONN", message, ...extra };
}

// The sources. RFC 3463: https://www.rfc-editor.org/rfc/rfc3463 (X.1 addressing, X.2 mailbox, X.3 mail system, X.4
// network, X.5 protocol, X.6 content, X.7 security); RFC 5321 4.2.2: https://www.rfc-editor.org/rfc/rfc5321#section-4.2.2;
// RFC 4954 6: https://www.rfc-editor.org/rfc/rfc4954#section-6 (530, 535 5.7.8).
const rfc5321 = "https://www.rfc-editor.org/rfc/rfc5321#section-4.2.2";
const rfc4954 = "https://www.rfc-editor.org/rfc/rfc4954#section-6";
const ses = {
  quotas: "https://docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas-errors.html",
  notVerified: "https://repost.aws/knowledge-center/ses-554-400-message-rejected-error",
  syntax: "https://repost.aws/knowledge-center/ses-501-errors-smtp-endpoint",
  errors: "https://docs.aws.amazon.com/ses/latest/dg/troubleshoot-error-messages.html",
};
const google = {
  gmail: "https://support.google.com/a/answer/3726730",
  relay: "https://support.google.com/a/answer/6140680",
  limits: "https://support.google.com/a/answer/2956491",
};
const microsoft = {
  ndr: "https://learn.microsoft.com/exchange/troubleshoot/email-delivery/ndr/non-delivery-reports-in-exchange-online",
  submission: "https://learn.microsoft.com/exchange/troubleshoot/send-emails/smtp-submission-improvements",
  throttled:
    "https://learn.microsoft.com/exchange/mail-flow-best-practices/continuous-error-throttling-smtp-auth-submissions",
};
const postfix = (parameter: string) => `https://www.postfix.org/postconf.5.html#${parameter}`;
const postmark = {
  errorCodes: "https://postmarkapp.com/developer/api/overview#error-codes",
  unprocessable: "https://postmarkapp.com/support/article/troubleshooting-422-unprocessable-entity-errors",
  smtp: "https://postmarkapp.com/support/article/common-smtp-connection-errors",
};
const resend = {
  errors: "https://resend.com/docs/api-reference/errors",
  domain: "https://resend.com/docs/knowledge-base/403-error-domain-mismatch",
};
const nodemailerSource = "node_modules/nodemailer/dist/cjs/smtp-connection/index.js (_onError, _onClose, timeoutError)";

/** Real replies: what they answer, the class they are read as, and where each is documented. */
const cases: [string, string, unknown, MailFailure][] = [
  // Amazon SES.
  [
    "SES over its rate, after DATA",
    ses.quotas,
    smtp("DATA", "454 Throttling failure: Maximum sending rate exceeded."),
    "throttle",
  ],
  [
    "SES over its daily quota",
    ses.quotas,
    smtp("DATA", "454 Throttling failure: Daily message quota exceeded."),
    "quota",
  ],
  [
    "SES refusing a sender it has not verified, after DATA",
    ses.notVerified,
    smtp(
      "DATA",
      "554 Message rejected: Email address is not verified. The following identities failed the check in region US-EAST-1: hello@jointandem.app",
    ),
    "sending",
  ],
  [
    "SES refusing a sender it has not verified, to MAIL FROM",
    ses.notVerified,
    smtp(
      "MAIL FROM",
      "554 Message rejected: Email address is not verified. The following identities failed the check in region US-EAST-1: hello@jointandem.app",
    ),
    "sending",
  ],
  [
    "SES's sandbox refusing a recipient it has not verified: the account's, not the person's",
    ses.notVerified,
    smtp(
      "DATA",
      "554 Message rejected: Email address is not verified. The following identities failed the check in region US-EAST-1: ada@example.com",
    ),
    "sending",
  ],
  [
    "SES refusing the recipient's address as written",
    ses.syntax,
    smtp("RCPT TO", "501 Invalid RCPT TO address provided"),
    "recipient",
  ],
  [
    "SES refusing the sender's address as written",
    ses.syntax,
    smtp("MAIL FROM", "501 Invalid MAIL FROM address provided"),
    "sending",
  ],
  ["SES refusing the credentials", ses.errors, smtp("AUTH PLAIN", "535 Authentication Credentials Invalid"), "sending"],
  [
    "a server at its connections (SES's 421)",
    ses.quotas,
    smtp("CONN", "421 Too many concurrent SMTP connections"),
    "throttle",
  ],
  // Google Workspace and Gmail.
  [
    "Gmail, an account that does not exist",
    google.gmail,
    smtp(
      "RCPT TO",
      "550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces.",
    ),
    "recipient",
  ],
  [
    "Gmail, a domain that does not exist",
    google.gmail,
    smtp("RCPT TO", "553 5.1.2 We weren't able to find the recipient domain. Please check for any spelling errors."),
    "recipient",
  ],
  [
    "Gmail, a mailbox over its quota, as a 5xx",
    google.gmail,
    smtp("RCPT TO", "552 5.2.2 The email account that you tried to reach is over quota."),
    "transient",
  ],
  [
    "Gmail, a mailbox over its quota, as a 4xx",
    google.gmail,
    smtp("RCPT TO", "452 4.2.2 The email account that you tried to reach is over quota."),
    "transient",
  ],
  [
    "Gmail, a disabled account",
    google.gmail,
    smtp("RCPT TO", "550 5.2.1 The email account that you tried to reach is disabled."),
    "transient",
  ],
  ["Gmail, no authentication", google.gmail, smtp("MAIL FROM", "530 5.7.0 Authentication Required."), "sending"],
  [
    "Gmail, wrong credentials",
    google.gmail,
    smtp("AUTH PLAIN", "535 5.7.8 Username and Password not accepted."),
    "sending",
  ],
  [
    "Gmail, a sender without SPF or DKIM",
    google.gmail,
    smtp(
      "DATA",
      "550 5.7.26 This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM.",
    ),
    "sending",
  ],
  [
    "Google's relay, denied to a recipient",
    google.relay,
    smtp(
      "RCPT TO",
      "550 5.7.0 Mail relay denied [203.0.113.10]. Invalid credentials for relay for one of the domains in: jointandem.app.",
    ),
    "sending",
  ],
  [
    "Google's relay, an IP registered for another domain",
    google.relay,
    smtp(
      "MAIL FROM",
      "550 5.7.1 Invalid credentials for relay [203.0.113.10]. The IP address you've registered in your Workspace SMTP Relay service doesn't match the domain of the account this email is being sent from.",
    ),
    "sending",
  ],
  [
    "Google's relay, the customer's daily limit, to RCPT TO",
    google.relay,
    smtp("RCPT TO", "550 5.7.1 Daily SMTP relay limit exceeded for customer"),
    "quota",
  ],
  [
    "Google's relay, the user's daily limit, to RCPT TO",
    google.relay,
    smtp("RCPT TO", "550 5.4.5 Daily SMTP relay limit exceeded for user"),
    "quota",
  ],
  [
    "Gmail, the user's daily limit",
    google.limits,
    smtp("RCPT TO", "550 5.4.5 Daily user sending quota exceeded."),
    "quota",
  ],
  [
    "Google's relay at its peak",
    google.relay,
    smtp("RCPT TO", "450 4.2.1 Peak SMTP relay limit exceeded for customer"),
    "throttle",
  ],
  [
    "Gmail, one recipient receiving too fast: that recipient's, not the sender's pace",
    google.gmail,
    smtp(
      "RCPT TO",
      "450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time. If the user is able to receive mail at that time, your message will be delivered.",
    ),
    "transient",
  ],
  [
    "Gmail closing the connection",
    google.gmail,
    smtp("CONN", "421 4.7.0 Try again later, closing connection."),
    "throttle",
  ],
  // Microsoft 365 and Exchange Online.
  [
    "Microsoft 365, SMTP AUTH off or not used",
    microsoft.ndr,
    smtp("MAIL FROM", "530 5.7.57 Client not authenticated to send mail. [BN1P110CA0052.NAMP110.PROD.OUTLOOK.COM]"),
    "sending",
  ],
  [
    "Microsoft 365, a sender the mailbox may not send as",
    microsoft.ndr,
    smtp("DATA", "550 5.7.60 SMTP; Client does not have permissions to send as this sender"),
    "sending",
  ],
  [
    "Exchange Online, relaying for a domain it does not accept",
    microsoft.ndr,
    smtp("RCPT TO", "550 5.7.54 SMTP; Unable to relay recipient in non-accepted domain"),
    "sending",
  ],
  [
    "Exchange Online, no such recipient",
    microsoft.ndr,
    smtp("RCPT TO", "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"),
    "recipient",
  ],
  [
    "Exchange Online, a full mailbox",
    microsoft.ndr,
    smtp(
      "RCPT TO",
      "554 5.2.2 mailbox full; STOREDRV.Deliver.Exception:QuotaExceededException.MapiExceptionShutoffQuotaExceeded",
    ),
    "transient",
  ],
  [
    "Microsoft 365 past three connections",
    microsoft.submission,
    smtp("MAIL FROM", "432 4.3.2 Concurrent connections limit exceeded."),
    "throttle",
  ],
  [
    "Microsoft 365's sender thread limit",
    microsoft.submission,
    smtp("MAIL FROM", "432 4.3.2 STOREDRV.ClientSubmit; sender thread limit exceeded"),
    "throttle",
  ],
  [
    "Microsoft 365 past 10,000 recipients a day",
    microsoft.submission,
    smtp("DATA", "554 5.2.0 STOREDRV.Submission.Exception:SubmissionQuotaExceededException"),
    "quota",
  ],
  [
    "Microsoft 365 stopping a mailbox after continuous errors, even to RCPT TO",
    microsoft.throttled,
    smtp("RCPT TO", "550 5.2.255 Sender throttled due to continuous invalid recipients errors."),
    "sending",
  ],
  // Postfix, as an MTA of one's own or a small provider's.
  [
    "Postfix, no such local user",
    postfix("unknown_local_recipient_reject_code"),
    smtp("RCPT TO", "550 5.1.1 <ada@example.com>: Recipient address rejected: User unknown in local recipient table"),
    "recipient",
  ],
  [
    "Postfix, no such virtual mailbox",
    postfix("unknown_virtual_mailbox_reject_code"),
    smtp("RCPT TO", "550 5.1.1 <ada@example.com>: Recipient address rejected: User unknown in virtual mailbox table"),
    "recipient",
  ],
  [
    "Postfix without ENHANCEDSTATUSCODES, no such local user: its words alone",
    postfix("unknown_local_recipient_reject_code"),
    smtp("RCPT TO", "550 <ada@example.com>: Recipient address rejected: User unknown in local recipient table"),
    "recipient",
  ],
  [
    "Postfix, relaying for a client it does not know",
    postfix("relay_domains_reject_code"),
    smtp("RCPT TO", "554 5.7.1 <ada@example.com>: Relay access denied"),
    "sending",
  ],
  [
    'Postfix, relaying denied in a reply that also says "Recipient address rejected"',
    postfix("smtpd_relay_restrictions"),
    smtp("RCPT TO", "554 5.7.1 <ada@example.com>: Recipient address rejected: Relay access denied"),
    "sending",
  ],
  [
    "Postfix, relaying deferred (defer_unauth_destination)",
    postfix("defer_unauth_destination"),
    smtp("RCPT TO", "454 4.7.1 <ada@example.com>: Relay access denied"),
    "sending",
  ],
  [
    "Postfix, a sender not logged in, refused at RCPT TO",
    postfix("smtpd_delay_reject"),
    smtp("RCPT TO", "553 5.7.1 <hello@jointandem.app>: Sender address rejected: not logged in"),
    "sending",
  ],
  [
    "Postfix, the sender's domain not found, at RCPT TO",
    postfix("reject_unknown_sender_domain"),
    smtp("RCPT TO", "450 4.1.8 <hello@jointandem.app>: Sender address rejected: Domain not found"),
    "sending",
  ],
  [
    "Postfix, the sender's domain refused for good",
    postfix("reject_unknown_sender_domain"),
    smtp("RCPT TO", "550 5.1.8 <hello@jointandem.app>: Sender address rejected: Domain not found"),
    "sending",
  ],
  [
    "Postfix, a client host it refuses",
    postfix("reject_unknown_client_hostname"),
    smtp(
      "RCPT TO",
      "550 5.7.25 <unknown[203.0.113.10]>: Client host rejected: cannot find your hostname, [203.0.113.10]",
    ),
    "sending",
  ],
  [
    "Postfix, greylisting",
    postfix("smtpd_recipient_restrictions"),
    smtp("RCPT TO", "451 4.7.1 Greylisted, try again later"),
    "transient",
  ],
  [
    "Postfix handing over to a full mailbox (LMTP)",
    postfix("virtual_mailbox_limit"),
    smtp("DATA", "552 5.2.2 <ada@example.com> Quota exceeded (mailbox for user is full)"),
    "transient",
  ],
  // Postmark: its API's ErrorCode, and its SMTP endpoint.
  [
    "Postmark's API, a recipient it made inactive (406)",
    postmark.errorCodes,
    api({
      status: 422,
      ErrorCode: 406,
      Message:
        "You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ada@example.com. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression.",
    }),
    "recipient",
  ],
  [
    "Postmark's API, an invalid To address (300)",
    postmark.unprocessable,
    api({ status: 422, ErrorCode: 300, Message: "Invalid 'To' address: 'ada@example'." }),
    "recipient",
  ],
  [
    "Postmark's API, a From that is not a verified sender signature (300)",
    postmark.unprocessable,
    api({
      status: 422,
      ErrorCode: 300,
      Message: "Invalid 'From' address: 'hello@jointandem.app' is not a verified sender signature.",
    }),
    "sending",
  ],
  [
    "Postmark's API, a bad or missing token (10)",
    postmark.errorCodes,
    api({ status: 401, ErrorCode: 10, Message: "Bad or missing API token" }),
    "sending",
  ],
  [
    "Postmark's API, a sender signature not confirmed (401)",
    postmark.errorCodes,
    api({ status: 422, ErrorCode: 401, Message: "Sender signature not confirmed" }),
    "sending",
  ],
  [
    "Postmark's API, an account that may not send (413)",
    postmark.errorCodes,
    api({ status: 422, ErrorCode: 413, Message: "Account May Not Send" }),
    "sending",
  ],
  [
    "Postmark's API, over its rate (429)",
    postmark.errorCodes,
    api({ status: 429, ErrorCode: 429, Message: "Rate Limit Exceeded" }),
    "throttle",
  ],
  [
    "Postmark's API in maintenance (100)",
    postmark.errorCodes,
    api({ status: 503, ErrorCode: 100, Message: "Maintenance" }),
    "transient",
  ],
  [
    "Postmark's SMTP, a token it does not know",
    `${postmark.smtp}; ${rfc4954}`,
    smtp("AUTH PLAIN", "535 5.7.8 Authentication credentials invalid"),
    "sending",
  ],
  // Resend's API, as its JSON errors say.
  [
    "Resend over its rate",
    resend.errors,
    api({
      statusCode: 429,
      name: "rate_limit_exceeded",
      message: "Too many requests. You can only make 2 requests per second.",
    }),
    "throttle",
  ],
  [
    "Resend's daily quota",
    resend.errors,
    api({ statusCode: 429, name: "daily_quota_exceeded", message: "You have reached your daily email sending quota." }),
    "quota",
  ],
  [
    "Resend's monthly quota",
    resend.errors,
    api({
      statusCode: 429,
      name: "monthly_quota_exceeded",
      message: "You have reached your monthly email sending quota.",
    }),
    "quota",
  ],
  [
    "Resend refusing the key",
    resend.errors,
    api({ status: 403, name: "invalid_api_key", message: "API key is invalid." }),
    "sending",
  ],
  [
    "Resend without a key",
    resend.errors,
    api({ statusCode: 401, name: "missing_api_key", message: "Missing API key in the authorization header." }),
    "sending",
  ],
  [
    "Resend, a domain not verified",
    resend.domain,
    api({
      statusCode: 403,
      name: "validation_error",
      message:
        "The jointandem.app domain is not verified. Please, add and verify your domain on https://resend.com/domains",
    }),
    "sending",
  ],
  [
    "Resend, a test account mailing others",
    resend.errors,
    api({
      statusCode: 403,
      name: "validation_error",
      message: "You can only send testing emails to your own email address (owner@jointandem.app).",
    }),
    "sending",
  ],
  [
    "Resend, an invalid to address",
    resend.errors,
    api({
      statusCode: 422,
      name: "validation_error",
      message:
        "Invalid `to` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
    }),
    "recipient",
  ],
  [
    "Resend, an invalid from address",
    resend.errors,
    api({
      statusCode: 422,
      name: "invalid_from_address",
      message:
        "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
    }),
    "sending",
  ],
  [
    "Resend, a field missing",
    resend.errors,
    api({ statusCode: 422, name: "missing_required_field", message: "Missing `to` field." }),
    "sending",
  ],
  ["an API down", resend.errors, api({ status: 503, name: "internal_server_error" }), "transient"],
  [
    "RFC 5321's own example of a refused recipient, with no enhanced code",
    "https://www.rfc-editor.org/rfc/rfc5321",
    smtp("RCPT TO", "550 No such user here"),
    "recipient",
  ],
  // Replies that say nothing of whom they are about.
  [
    "a 5xx to RCPT TO with RFC 5321's words alone: no evidence against the address, retried (five in a row hold every sender)",
    rfc5321,
    smtp("RCPT TO", "550 Requested action not taken: mailbox unavailable"),
    "transient",
  ],
  [
    "outlook.com's X.5.0 to RCPT TO: a protocol code, no evidence against the address",
    rfc5321,
    smtp("RCPT TO", "550 5.5.0 Requested action not taken: mailbox unavailable."),
    "transient",
  ],
  [
    "a 5xx to DATA that says nothing more: the message as a whole",
    ses.errors,
    smtp("DATA", "554 Transaction failed: Duplicate header 'Message-ID'."),
    "sending",
  ],
  ["a 4xx to MAIL FROM", rfc5321, smtp("MAIL FROM", "451 4.3.0 Temporary local problem"), "transient"],
  // No reply at all: how far the conversation went, as nodemailer reports it.
  [
    "a server refusing connections",
    nodemailerSource,
    dropped("ESOCKET", "connect ECONNREFUSED 127.0.0.1:2525", { originalCode: "ECONNREFUSED" }),
    "sending",
  ],
  [
    "a host that does not exist",
    nodemailerSource,
    dropped("EDNS", "getaddrinfo ENOTFOUND smtp.example.invalid"),
    "sending",
  ],
  [
    "a server that never greets",
    nodemailerSource,
    dropped("ETIMEDOUT", "Greeting never received", { timeoutType: "GREETING_TIMEOUT" }),
    "sending",
  ],
  [
    "a server that never accepts the connection",
    nodemailerSource,
    dropped("ETIMEDOUT", "Connection timeout", { timeoutType: "CONNECT_TIMEOUT" }),
    "sending",
  ],
  [
    "credentials nodemailer cannot offer",
    nodemailerSource,
    { code: "EAUTH", command: "API", message: 'Missing credentials for "PLAIN"' },
    "sending",
  ],
  [
    "a connection reset midway, before the message",
    nodemailerSource,
    dropped("ESOCKET", "read ECONNRESET", { originalCode: "ECONNRESET" }),
    "transient",
  ],
  [
    "a connection dropped before the message",
    nodemailerSource,
    dropped("ECONNECTION", "Connection closed unexpectedly"),
    "transient",
  ],
  [
    "a server silent midway, before the message",
    nodemailerSource,
    dropped("ETIMEDOUT", "Timeout", { timeoutType: "SOCKET_TIMEOUT" }),
    "transient",
  ],
  [
    "a connection dropped after the whole message, before the reply",
    nodemailerSource,
    dropped("ECONNECTION", "Connection closed unexpectedly", { messageHandedOver: true }),
    "unknown",
  ],
  [
    "a server silent after the whole message",
    nodemailerSource,
    dropped("ETIMEDOUT", "Timeout", { timeoutType: "SOCKET_TIMEOUT", messageHandedOver: true }),
    "unknown",
  ],
  ["anything else", "-", new Error("something odd"), "transient"],
];

describe("classifyMailFailure", () => {
  it.each(cases)("%s (%s)", (_label, _source, error, expected) => {
    expect(classifyMailFailure(error)).toBe(expected);
  });

  it("keeps isPermanentFailure to the recipient's refusals, and stops a run at the sending's, its rate and quota", () => {
    for (const [, , error, kind] of cases) {
      expect(isPermanentFailure(error)).toBe(kind === "recipient");
      if (kind !== "transient") expect(isSendingFailure(error)).toBe(kind !== "recipient" && kind !== "unknown");
    }
  });

  it("reads Google's 5xx to RCPT TO for its daily relay limit as the quota, as nodemailer reports it", async () => {
    const server = await startSmtpServer(0, {
      replyToRecipient: () => ({ code: 550, text: "5.7.1 Daily SMTP relay limit exceeded for customer" }),
    });
    const mailer = createMailer({ smtpUrl: server.url, from: "hello@jointandem.app", outboxDir: os.tmpdir() });
    const message = {
      to: "ada@example.com",
      subject: "s",
      text: "t",
      html: "<p>t</p>",
      messageId: "<1@j>",
      headers: {},
    };
    const error = await mailer.send(message).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    mailer.close();
    await server.close();
    // The rule before read the 5xx to RCPT TO alone, and marked the recipient refused for good.
    expect([classifyMailFailure(error), isPermanentFailure(error), isSendingFailure(error)]).toEqual([
      "quota",
      false,
      true,
    ]);
  });
});

describe("a connection lost, as nodemailer reports it from a real server", () => {
  const message = { to: "ada@example.com", subject: "s", text: "t", html: "<p>t</p>", messageId: "<1@j>", headers: {} };

  /** The error of one send over a fresh connection to a server that answers as `options` say, and what it kept. */
  async function failureOf(options: Parameters<typeof startSmtpServer>[1]) {
    const server = await startSmtpServer(0, options);
    const mailer = createMailer({ smtpUrl: server.url, from: "hello@jointandem.app", outboxDir: os.tmpdir() });
    const error = await mailer.send(message).then(
      () => undefined,
      (failure: unknown) => failure as Record<string, unknown>,
    );
    mailer.close();
    await server.close();
    return { error, kept: server.deliveries.length };
  }

  it("is the same error before the message and after it, which only the mailer's mark tells apart", async () => {
    const before = await failureOf({ dropAtRecipient: () => true });
    const after = await failureOf({ dropAfterData: () => true });
    // nodemailer's own report (smtp-connection's _onClose): a lost connection, at no command, with no reply, whether
    // the server had none of the message or all of it.
    const shape = (error: Record<string, unknown> | undefined) => [error?.code, error?.command, error?.responseCode];
    expect(shape(before.error)).toEqual(["ECONNECTION", "CONN", undefined]);
    expect(shape(after.error)).toEqual(shape(before.error));
    // The server kept the second message: its sender cannot know whether it went.
    expect([before.kept, after.kept]).toEqual([0, 1]);
    expect([classifyMailFailure(before.error), classifyMailFailure(after.error)]).toEqual(["transient", "unknown"]);
    // Neither refuses the person, and the unknown one says nothing of the next message.
    expect([isPermanentFailure(before.error), isPermanentFailure(after.error)]).toEqual([false, false]);
    expect(isSendingFailure(after.error)).toBe(false);
  });

  it("is the sending's when the connection is refused at connect: nothing was said, and nothing will be", async () => {
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${await closedPort()}`,
      from: "hello@jointandem.app",
      outboxDir: os.tmpdir(),
    });
    const error = await mailer.send(message).then(
      () => undefined,
      (failure: unknown) => failure as Record<string, unknown>,
    );
    mailer.close();
    // nodemailer's ESOCKET, the system's ECONNREFUSED under it.
    expect([error?.code, error?.originalCode, error?.command]).toEqual(["ESOCKET", "ECONNREFUSED", "CONN"]);
    expect(classifyMailFailure(error)).toBe("sending");
  });
});

describe("quotaEndsAt", () => {
  it("is a day after the first refusal, not the next midnight, when the rolling window may still be full", () => {
    const refused = Date.UTC(2026, 10, 23, 23, 50);
    expect(new Date(quotaEndsAt(refused)).toISOString()).toBe("2026-11-24T23:50:00.000Z");
  });
});
