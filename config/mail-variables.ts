import { z } from "zod";
import { mailProviderNames, mailProviders, type MailLimits, type MailProviderName } from "./mail-providers";
import { commaList, isAddress, isUrl, projectPath, text, wholeNumber, type Variable } from "./variable-kinds";

/*
 * The variables of the mail (variables.ts's rows from SMTP_URL on, in its order): the mail server, the sender, the
 * provider's limits, the confirmations' schedule, and the providers' bounce and complaint webhooks.
 */

/** A provider's limits in words, for docs/configuration.md. */
const limitsText = ({ ratePerSecond, connections, dailyLimit }: MailLimits) =>
  `${ratePerSecond} a second, ${connections} ${connections === 1 ? "connection" : "connections"}${dailyLimit ? `, ${dailyLimit.toLocaleString("en-US")} a day` : ""}`;

/**
 * A Svix signing secret as the standardwebhooks library decodes it (mail-events/resend.ts): whsec_, then base64 in its
 * one canonical spelling (an "=" inside, or a length cut short, makes the library throw at every request), of 24 to 64
 * bytes, the lengths Svix makes.
 */
function isSvixSecret(value: string): boolean {
  const base64 = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value)?.[1];
  if (!base64) return false;
  const key = Buffer.from(base64, "base64");
  return key.toString("base64") === base64 && key.length >= 24 && key.length <= 64;
}

/**
 * Postmark signs nothing: its basic auth is all that keeps a stranger from posting bounces that silence anyone's mail,
 * so its password must be one nobody guesses within the event routes' limit on failed tries: 24 characters of at least
 * 10 different ones, as 18 random bytes in base64url (144 bits) are, and a word, a date or a run of one character
 * is not.
 */
const postmarkPassword = { length: 24, different: 10 };
function isStrongBasicAuth(value: string): boolean {
  const [, user, password] = /^([^:\s]+):(\S+)$/.exec(value) ?? [];
  return (
    user !== undefined &&
    password !== undefined &&
    password.length >= postmarkPassword.length &&
    new Set(password).size >= postmarkPassword.different
  );
}

export const mailVariables = {
  SMTP_URL: {
    schema: text.refine((value) => isUrl(value, /^smtps?:$/)).optional(),
    expected: "a URL like smtps://user:password@smtp.example.com:465",
    secret: true,
    defaultText: "not set",
    usedFor:
      "The mail server of every e-mail: the site's confirmations and the founders' daily digest, and in the founders' shell `resend-pending`, `let-in` and `announce-policy-change`. Not set: `npm start` writes its e-mails to `OUTBOX_DIR` instead, Netlify's functions send none (a confirmation stays owed), `resend-pending` and `announce-policy-change` send nothing, and `let-in` writes to `OUTBOX_DIR` for a local SQLite file only.",
  },
  MAIL_FROM: {
    schema: text.optional(),
    expected: 'a sender such as "Tandem" <hello@jointandem.app>',
    defaultText: "the name and `CONTACT_EMAIL`",
    usedFor: "The sender of every e-mail, the site's and the founders' commands'.",
  },
  FOUNDERS_DIGEST_TO: {
    schema: commaList(text).refine((addresses) => addresses.every(isAddress) && addresses.length <= 10),
    expected: "up to ten e-mail addresses, separated by commas",
    defaultText: "none: no digest",
    usedFor:
      "The founders' daily digest: yesterday's signups, confirmations, leaves and invites, and the totals, mailed once a day to these addresses (npm start's hourly pass; Netlify's daily function). Not set: nothing is mailed.",
  },
  OUTBOX_DIR: {
    schema: projectPath("data/outbox"),
    expected: "a folder",
    defaultText: "`data/outbox`",
    usedFor:
      "Where e-mails go as `.eml` files when `SMTP_URL` is not set: `npm start`'s confirmations and daily digest, and `let-in`'s for a local SQLite file. A leave or `remove` deletes that address's files here too.",
  },
  MAIL_PROVIDER: {
    schema: z
      .enum(mailProviderNames as [MailProviderName, ...MailProviderName[]])
      .optional()
      .transform((value) => value ?? "smtp"),
    expected: `one of ${mailProviderNames.join(", ")}`,
    defaultText: "`smtp`",
    usedFor: `Which mail provider \`SMTP_URL\` is, for what it allows: messages a second, connections at once, and a daily limit. ${mailProviderNames.map((name) => `\`${name}\`: ${limitsText(mailProviders[name])}`).join("; ")}. Every sender keeps within them together: the signup's own e-mail, the sweep, \`resend-pending\`, \`let-in\` and \`announce-policy-change\`. See [The waitlist](waitlist.md#the-mail-providers-limits).`,
  },
  MAIL_RATE_PER_SECOND: {
    schema: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/)
      .transform(Number)
      .pipe(z.number().min(0.01).max(1000))
      .optional(),
    expected: "a number of messages a second from 0.01 to 1000, such as 14 or 0.5",
    defaultText: "the provider's",
    usedFor: "What your account allows instead of `MAIL_PROVIDER`'s figure (SES: the console's Maximum send rate).",
  },
  MAIL_CONNECTIONS: {
    schema: wholeNumber(1, 100, 0).transform((value) => value || undefined),
    expected: "a whole number from 1 to 100",
    defaultText: "the provider's",
    usedFor:
      "Connections to the mail server open at once, from every sender together, instead of `MAIL_PROVIDER`'s. Its old name, `MAIL_SENDS_AT_ONCE`, still works when this is not set, with a deprecation warning.",
  },
  MAIL_DAILY_LIMIT: {
    schema: z
      .string()
      .trim()
      .regex(/^(\d+|none)$/)
      .transform((value) => (value === "none" ? null : Number(value)))
      .pipe(z.number().int().min(1).max(100_000_000).nullable())
      .optional(),
    expected: 'a whole number of messages a UTC day, or "none"',
    defaultText: "the provider's",
    usedFor:
      "Messages a day your account allows instead of `MAIL_PROVIDER`'s (SES: the console's Sending quota). Past it nothing is sent until the next day; the founders' reports say who would reach their 30th day unmailed at that pace.",
  },
  CONFIRMATION_LEASE_SECONDS: {
    schema: wholeNumber(1, 3600, 120),
    expected: "a whole number from 1 to 3600",
    defaultText: "`120`",
    usedFor: "How long one sender holds an owed confirmation; a server that died while sending gives it up after this.",
  },
  CONFIRMATION_SWEEP_SECONDS: {
    schema: wholeNumber(1, 3600, 30),
    expected: "a whole number from 1 to 3600",
    defaultText: "`30`",
    usedFor: "How often the running server looks for owed confirmations (expired holds, failures due a retry).",
  },
  SES_SNS_TOPIC_ARN: {
    schema: commaList(text).refine((arns) =>
      arns.every((arn) => /^arn:aws(?:-us-gov)?:sns:[a-z]{2}(?:-gov)?-[a-z]+-\d+:\d{12}:[\w-]{1,256}$/.test(arn)),
    ),
    expected:
      "the ARN of the SNS topic SES posts its bounces and complaints to, such as arn:aws:sns:us-east-1:123456789012:ses-events (several joined by commas)",
    defaultText: "not set: the route answers 404",
    usedFor:
      "Amazon SES's bounces and complaints, through the SNS topic subscribed over HTTPS to `/waitlist/mail-events/ses`: only this topic's messages are taken, for any AWS account could subscribe a topic of its own and post validly signed fake bounces. See [Bounces and complaints](waitlist.md#bounces-and-complaints).",
  },
  RESEND_WEBHOOK_SECRET: {
    schema: text.refine(isSvixSecret).optional(),
    expected: "the webhook's signing secret from Resend: whsec_ and its key of 24 to 64 bytes in base64",
    hint: "copy it again from the webhook's page in Resend.",
    secret: true,
    defaultText: "not set: the route answers 404",
    usedFor:
      "Resend's bounces and complaints, posted to `/waitlist/mail-events/resend`: the secret each event's signature is checked with. See [Bounces and complaints](waitlist.md#bounces-and-complaints).",
  },
  POSTMARK_WEBHOOK_AUTH: {
    schema: text.refine(isStrongBasicAuth).optional(),
    expected: `user:password, the password at least ${postmarkPassword.length} characters of at least ${postmarkPassword.different} different ones, random`,
    hint: `make a password with: node -e "console.log(require('node:crypto').randomBytes(18).toString('base64url'))", and write the same user:password into the webhook URL in Postmark.`,
    secret: true,
    defaultText: "not set: the route answers 404",
    usedFor:
      "Postmark's bounce and spam complaint webhooks, posted to `/waitlist/mail-events/postmark` with this basic auth. See [Bounces and complaints](waitlist.md#bounces-and-complaints).",
  },
} satisfies Record<string, Variable>;
