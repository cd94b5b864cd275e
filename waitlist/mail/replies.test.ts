import os from "node:os";
import { createMailer, isPermanentFailure, isSendingFailure } from "./mailer";
import { classifyMailFailure, quotaEndsAt, type MailFailure } from "./replies";
import { startSmtpServer } from "../../test/support/smtp";

/** A refusal as nodemailer reports it: the command it failed at, the server's reply line, and its own code. */
function smtp(command: string, response: string) {
  const code = { "RCPT TO": "EENVELOPE", "MAIL FROM": "EENVELOPE", DATA: "EMESSAGE", CONN: "EPROTOCOL" }[command];
  return { command, response, responseCode: Number(response.slice(0, 3)), code: code ?? "EAUTH", message: response };
}

// Sources, as the providers word them:
// SES: https://docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas-errors.html (over the rate or the daily quota,
//   SES drops the message and answers 454).
// Google: https://support.google.com/a/answer/2956491 (SMTP relay sending limits) and /a/answer/6140680 (SMTP relay
//   error messages); https://support.google.com/a/answer/3726730 (Gmail SMTP errors and codes).
// Microsoft 365: https://learn.microsoft.com/exchange/troubleshoot/send-emails/smtp-submission-improvements (three
//   connections, 10,000 recipients a day), the Exchange team's "Changes coming to the SMTP Authenticated Submission
//   client protocol" (sender thread limit), and /Exchange/mail-flow-best-practices/continuous-error-throttling-smtp-
//   auth-submissions (a mailbox stopped after continuous errors).
// Resend: https://resend.com/docs/api-reference/errors (429 rate_limit_exceeded, daily_quota_exceeded).
const cases: [string, unknown, MailFailure][] = [
  ["SES over its rate, after DATA", smtp("DATA", "454 Throttling failure: Maximum sending rate exceeded."), "throttle"],
  ["SES over its daily quota", smtp("DATA", "454 Throttling failure: Daily message quota exceeded."), "quota"],
  [
    "Google's relay, the customer's daily limit, to RCPT TO",
    smtp("RCPT TO", "550 5.7.1 Daily SMTP relay limit exceeded for customer"),
    "quota",
  ],
  [
    "Google's relay, the user's daily limit, to RCPT TO",
    smtp("RCPT TO", "550 5.4.5 Daily SMTP relay limit exceeded for user"),
    "quota",
  ],
  ["Gmail, the user's daily limit", smtp("RCPT TO", "550 5.4.5 Daily user sending quota exceeded."), "quota"],
  ["Google's relay at its peak", smtp("RCPT TO", "450 4.2.1 Peak SMTP relay limit exceeded for customer"), "throttle"],
  [
    "Gmail, one recipient receiving too fast: that recipient's, not the sender's pace",
    smtp(
      "RCPT TO",
      "450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time. If the user is able to receive mail at that time, your message will be delivered.",
    ),
    "transient",
  ],
  ["Gmail closing the connection", smtp("CONN", "421 4.7.0 Try again later, closing connection."), "throttle"],
  ["a server at its connections", smtp("CONN", "421 Too many concurrent SMTP connections"), "throttle"],
  [
    "Microsoft 365 past three connections",
    smtp("MAIL FROM", "432 4.3.2 Concurrent connections limit exceeded."),
    "throttle",
  ],
  [
    "Microsoft 365's sender thread limit",
    smtp("MAIL FROM", "432 4.3.2 STOREDRV.ClientSubmit; sender thread limit exceeded"),
    "throttle",
  ],
  [
    "Microsoft 365 past 10,000 recipients a day",
    smtp("DATA", "554 5.2.0 STOREDRV.Submission.Exception:SubmissionQuotaExceededException"),
    "quota",
  ],
  [
    "Microsoft 365 stopping a mailbox after continuous errors, even to RCPT TO",
    smtp("RCPT TO", "550 5.2.255 Sender throttled due to continuous invalid recipients errors."),
    "sending",
  ],
  ["Resend over its rate", { status: 429, name: "rate_limit_exceeded" }, "throttle"],
  [
    "Resend's daily quota",
    { status: 429, name: "daily_quota_exceeded", message: "You have reached your daily email sending quota." },
    "quota",
  ],
  ["Resend refusing the key", { status: 403, name: "invalid_api_key", message: "API key is invalid." }, "sending"],
  ["an API down", { status: 503, name: "internal_server_error" }, "transient"],
  [
    "Postfix without the mailbox",
    smtp("RCPT TO", "550 5.1.1 <bob@example.com>: Recipient address rejected"),
    "recipient",
  ],
  ["greylisting", smtp("RCPT TO", "451 4.7.1 Greylisted, try again later"), "transient"],
  ["a sender not verified", smtp("MAIL FROM", "554 5.7.1 Sender address not verified"), "sending"],
  ["wrong credentials", smtp("AUTH PLAIN", "535 5.7.8 Authentication credentials invalid"), "sending"],
  ["a 4xx to MAIL FROM", smtp("MAIL FROM", "451 4.3.0 Temporary local problem"), "transient"],
  ["a server refusing connections", { code: "ESOCKET", command: "CONN", message: "connect ECONNREFUSED" }, "sending"],
  ["a host that does not exist", { code: "EDNS", command: "CONN", message: "getaddrinfo ENOTFOUND" }, "sending"],
  ["a server that never greets", { code: "ETIMEDOUT", command: "CONN", message: "Greeting never received" }, "sending"],
  [
    "a connection dropped",
    { code: "ECONNECTION", command: "CONN", message: "Connection closed unexpectedly" },
    "transient",
  ],
  ["anything else", new Error("something odd"), "transient"],
];

describe("classifyMailFailure", () => {
  it.each(cases)("%s", (_label, error, expected) => {
    expect(classifyMailFailure(error)).toBe(expected);
  });

  it("keeps isPermanentFailure to the recipient's refusals, and stops a run at the sending's, its rate and quota", () => {
    for (const [, error, kind] of cases) {
      expect(isPermanentFailure(error)).toBe(kind === "recipient");
      if (kind !== "transient") expect(isSendingFailure(error)).toBe(kind !== "recipient");
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

describe("quotaEndsAt", () => {
  it("is a day after the first refusal, not the next midnight, when the rolling window may still be full", () => {
    const refused = Date.UTC(2026, 10, 23, 23, 50);
    expect(new Date(quotaEndsAt(refused)).toISOString()).toBe("2026-11-24T23:50:00.000Z");
  });
});
