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
  /**
   * The word the Privacy Policy's `mailProvider` must hold when MAIL_PROVIDER is this one, so that the policy names the
   * provider the site really uses; null for a plain SMTP server, which could be anyone's.
   */
  brand: string | null;
}

export const mailProviders = {
  smtp: {
    label: "a plain SMTP server",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: null,
    source: "What a small provider allows; set MAIL_RATE_PER_SECOND and MAIL_CONNECTIONS to your server's own.",
    brand: null,
  },
  "ses-sandbox": {
    label: "Amazon SES (sandbox)",
    ratePerSecond: 1,
    connections: 1,
    dailyLimit: 200,
    source: "docs.aws.amazon.com/ses/latest/dg/request-production-access.html: 1 message a second and 200 a day.",
    brand: "Amazon",
  },
  ses: {
    label: "Amazon SES",
    ratePerSecond: 14,
    connections: 10,
    dailyLimit: 50_000,
    source:
      "A new production account's usual quota; yours is on the SES console's Account dashboard (Sending quota, Maximum send rate): set MAIL_RATE_PER_SECOND and MAIL_DAILY_LIMIT to it.",
    brand: "Amazon",
  },
  "resend-free": {
    label: "Resend (free plan)",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: 100,
    source: "resend.com/docs/knowledge-base/account-quotas-and-limits: 100 a day (3,000 a month); 2 requests a second.",
    brand: "Resend",
  },
  resend: {
    label: "Resend",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: null,
    source: "resend.com/docs/api-reference/rate-limit: 2 requests a second per team unless raised.",
    brand: "Resend",
  },
  postmark: {
    label: "Postmark",
    ratePerSecond: 10,
    connections: 10,
    dailyLimit: null,
    source: "Postmark publishes no rate; it asks for at most 10 connections at once.",
    brand: "Postmark",
  },
  microsoft365: {
    label: "Microsoft 365",
    ratePerSecond: 0.5,
    connections: 3,
    dailyLimit: 10_000,
    source:
      "learn.microsoft.com/office365/servicedescriptions/exchange-online-service-description/exchange-online-limits: 30 messages a minute, 10,000 recipients a day.",
    brand: "Microsoft",
  },
  "google-workspace": {
    label: "Google Workspace (SMTP relay)",
    ratePerSecond: 2,
    connections: 2,
    dailyLimit: 10_000,
    source: "support.google.com/a/answer/166852: 10,000 recipients a user a day through the SMTP relay.",
    brand: "Google",
  },
} as const satisfies Record<string, MailProvider>;

export type MailProviderName = keyof typeof mailProviders;
export const mailProviderNames = Object.keys(mailProviders) as MailProviderName[];

/** What <MailProvider /> shows while the Privacy Policy names no mail provider: a placeholder a public build refuses. */
export const unnamedMailProvider = "[the e-mail provider: name it in this policy's frontmatter, mailProvider]";

/**
 * Why the mail provider the Privacy Policy names (`mailProvider`, its frontmatter) is not the one the site uses
 * (MAIL_PROVIDER): none named, or one without the provider's brand; undefined when it names it. The provider keeps
 * the addresses it delivers to, and its own list of those that bounced or complained, so the policy must name it
 * truly; the build of a public site refuses otherwise (gatsby-node.ts).
 */
export function mailProviderProblem(named: string | undefined, provider: MailProviderName): string | undefined {
  const { brand, label } = mailProviders[provider];
  const write = `Write its legal name and country in the Privacy Policy's frontmatter (content/legal/privacy-policy.mdx, the field mailProvider, such as Amazon Web Services, Inc. (Amazon SES, United States)), with a dated entry under "updates" saying so (npm run check:content -- --fix writes it).`;
  if (named === undefined) {
    return `The Privacy Policy names no mail provider, but the site's e-mails go through one (MAIL_PROVIDER is ${provider}: ${label}). ${write}`;
  }
  if (brand !== null && !named.toLowerCase().includes(brand.toLowerCase())) {
    return `The Privacy Policy names ${named} as the mail provider, but MAIL_PROVIDER is ${provider} (${label}). Name the one the site uses: ${write} Or set MAIL_PROVIDER to the provider it names.`;
  }
  return undefined;
}
