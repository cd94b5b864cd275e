/*
 * What a mail provider allows a sender, as plain data: messages a second, connections open at once, and a daily
 * limit where it has one. MAIL_PROVIDER picks one of these; MAIL_RATE_PER_SECOND, MAIL_CONNECTIONS and
 * MAIL_DAILY_LIMIT say what the founders' own account allows instead (config/variables.ts). Every sender keeps within
 * them together (waitlist/mail/pace.ts); docs/configuration.md shows this table and where to read an account's own.
 */

export interface MailLimits {
  /** Messages a second at most, from every sender together. */
  ratePerSecond: number;
  /** Connections to the mail server open at once at most. */
  connections: number;
  /** Messages a UTC day at most; null for none. */
  dailyLimit: number | null;
  /** Whose limits they are, as the founders' reports name it (MAIL_PROVIDER's label). */
  provider?: string;
}

export interface MailProvider extends MailLimits {
  /** Its name as the docs and the founders' reports show it. */
  label: string;
  /** Where an account's own figures are read, and what a new one starts with. */
  source: string;
}

export const mailProviders = {
  smtp: {
    label: "a plain SMTP server",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: null,
    source: "What a small provider allows; set MAIL_RATE_PER_SECOND and MAIL_CONNECTIONS to your server's own.",
  },
  "ses-sandbox": {
    label: "Amazon SES (sandbox)",
    ratePerSecond: 1,
    connections: 1,
    dailyLimit: 200,
    source: "docs.aws.amazon.com/ses/latest/dg/request-production-access.html: 1 message a second and 200 a day.",
  },
  ses: {
    label: "Amazon SES",
    ratePerSecond: 14,
    connections: 10,
    dailyLimit: 50_000,
    source:
      "A new production account's usual quota; yours is on the SES console's Account dashboard (Sending quota, Maximum send rate): set MAIL_RATE_PER_SECOND and MAIL_DAILY_LIMIT to it.",
  },
  "resend-free": {
    label: "Resend (free plan)",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: 100,
    source: "resend.com/docs/knowledge-base/account-quotas-and-limits: 100 a day (3,000 a month); 2 requests a second.",
  },
  resend: {
    label: "Resend",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: null,
    source: "resend.com/docs/api-reference/rate-limit: 2 requests a second per team unless raised.",
  },
  postmark: {
    label: "Postmark",
    ratePerSecond: 10,
    connections: 10,
    dailyLimit: null,
    source: "Postmark publishes no rate; it asks for at most 10 connections at once.",
  },
  microsoft365: {
    label: "Microsoft 365",
    ratePerSecond: 0.5,
    connections: 3,
    dailyLimit: 10_000,
    source:
      "learn.microsoft.com/office365/servicedescriptions/exchange-online-service-description/exchange-online-limits: 30 messages a minute, 10,000 recipients a day.",
  },
  "google-workspace": {
    label: "Google Workspace (SMTP relay)",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: 10_000,
    source: "support.google.com/a/answer/166852: 10,000 recipients a user a day through the SMTP relay.",
  },
} as const satisfies Record<string, MailProvider>;

export type MailProviderName = keyof typeof mailProviders;
export const mailProviderNames = Object.keys(mailProviders) as MailProviderName[];
