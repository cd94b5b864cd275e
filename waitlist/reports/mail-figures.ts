import type { MailPace } from "../mail/pace";
import type { ListRow, MailCounts, MailDay } from "../signup-life/types";
import type { MailBookkeeping } from "../stores/store";
import { mailOutlook, outlookLines, type MailOutlook } from "./mail-outlook";

/*
 * The mail's health, as a provider judges an account: bounces for good and complaints as a share of the mail sent,
 * over the last 7 UTC days, from the store's day figures (mailDays: the senders count what they send, the mail events
 * what bounced or was complained of). stats, the report and the daily digest show these figures, and a warning, in
 * the founders' words, before a provider's review threshold is reached. Figures only: no address.
 */

/** The days the rates are taken over. */
export const mailWindowDays = 7;

/**
 * Amazon SES's thresholds, as shares of the mail sent: it reviews an account at 5 % bounces or 0.1 % complaints, and
 * may pause its sending at 10 % or 0.5 % (its enforcement FAQ). A warning starts at half the review threshold, so the
 * founders hear of it while there is time to act.
 */
export const reviewThresholds = {
  bounce: { review: 0.05, pause: 0.1 },
  complaint: { review: 0.001, pause: 0.005 },
} as const;

export interface MailFigures {
  /** The UTC days the rates are over, both included: the 7 to `to`. */
  from: string;
  to: string;
  /** The day `to` alone (today so far, for stats; yesterday, for the digest). */
  day: MailCounts;
  /** The 7 days together. */
  week: MailCounts;
  /** Bounced for good / sent and complained / sent over the 7 days, as fractions; null while none was sent. */
  bounceRate: number | null;
  complaintRate: number | null;
  /** What is near a provider's threshold and what to do, a sentence or two each; none while all is well. */
  warnings: string[];
  /** When the confirmations owed go at the provider's pace (mail-outlook.ts); null for mail no provider paces. */
  outlook: MailOutlook | null;
  /**
   * Whether bounces and complaints reach the site at all: a provider's event route is set. Without one (plain SMTP,
   * Google Workspace, Microsoft 365), none is ever counted, and the rates say nothing: they are null, with no warning.
   */
  reported: boolean;
}

/** What would report the bounces and complaints that no event route brings, as the founders' figures say it. */
export const notReported =
  "bounces and complaints not reported: no provider's event route is set (SES_SNS_TOPIC_ARN, RESEND_WEBHOOK_SECRET or POSTMARK_WEBHOOK_AUTH: docs/waitlist.md, Bounces and complaints); a plain SMTP server, Google Workspace and Microsoft 365 report none to the site";

/** Whether any provider's bounce and complaint route is set (config/env.ts's mailEvents): the figures are reported. */
export const eventsReported = (mailEvents: {
  sesTopicArns?: readonly string[];
  resendSecret?: string;
  postmarkAuth?: string;
}) => Boolean(mailEvents.sesTopicArns?.length || mailEvents.resendSecret || mailEvents.postmarkAuth);

const none = (): MailCounts => ({ sent: 0, throttled: 0, bounced: 0, complained: 0 });

/** The calendar day `days` before `day` (YYYY-MM-DD). */
const before = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** The first day of the window that ends on `to`: what to ask the store's mailDays from. */
export const mailWindowFrom = (to: string) => before(to, mailWindowDays - 1);

/** A rate as the founders read it: "1.25 %", to a hundredth, for the complaints' thresholds are tenths of one. */
export const ratePercent = (rate: number | null) => (rate === null ? "none sent" : `${(rate * 100).toFixed(2)} %`);

const advice = {
  bounce:
    "Find where the bad addresses come from (stats' sources and campaigns, a day with a burst of signups), check that the bot protection holds (the form's hidden field, WAITLIST_RATE_LIMIT), and hold back let-in waves and announcements until the rate falls.",
  complaint:
    "Check that every e-mail says why it comes and carries its leave link, that nobody is mailed who did not sign up themselves (bot signups, an imported list), and mail the list less often until the rate falls.",
};

function warning(kind: "bounce" | "complaint", rate: number | null): string | undefined {
  if (rate === null) return undefined;
  const { review, pause } = reviewThresholds[kind];
  const what = `${kind === "bounce" ? "Bounces for good" : "Complaints"} are ${ratePercent(rate)} of the mail sent in the last ${mailWindowDays} days`;
  const [at, then] = [ratePercent(review), ratePercent(pause)];
  if (rate >= pause)
    return `${what}: at or past the ${then} at which Amazon SES may pause the account's sending. ${advice[kind]}`;
  if (rate >= review) {
    return `${what}: past the ${at} at which Amazon SES reviews the account (it may pause sending at ${then}). ${advice[kind]}`;
  }
  if (rate >= review / 2) return `${what}: nearing the ${at} at which Amazon SES reviews the account. ${advice[kind]}`;
  return undefined;
}

/** The figures of the 7 days to `to` from the store's days (mailDays(mailWindowFrom(to))); days past `to` left out. */
export function mailFigures(
  days: readonly MailDay[],
  to: string,
  outlook: MailOutlook | null = null,
  reported = true,
): MailFigures {
  const from = mailWindowFrom(to);
  const week = none();
  const day = none();
  for (const one of days) {
    if (one.day < from || one.day > to) continue;
    for (const name of Object.keys(week) as (keyof MailCounts)[]) {
      week[name] += one[name];
      if (one.day === to) day[name] += one[name];
    }
  }
  const rateOf = (n: number) => (week.sent === 0 || !reported ? null : n / week.sent);
  const [bounceRate, complaintRate] = [rateOf(week.bounced), rateOf(week.complained)];
  const warnings = [warning("bounce", bounceRate), warning("complaint", complaintRate)].filter(
    (one) => one !== undefined,
  );
  return { from, to, day, week, bounceRate, complaintRate, warnings, outlook, reported };
}

/**
 * The figures of the 7 days to `to` as the store and the pace keep them: the store's days, and the counts the pace's
 * shards hold of a day not yet closed (each message is in one of the two); with the outlook of the mail owed `now`,
 * where a provider paces the mail (the outbox folder has none).
 */
export async function readMailFigures({
  store,
  pace,
  rows,
  to,
  now,
  reported = true,
}: {
  store: Pick<MailBookkeeping, "mailDays">;
  pace: MailPace;
  rows: readonly Pick<ListRow, "state" | "optInSince" | "createdAt">[];
  to: string;
  now: Date;
  /** Whether a provider's event route is set (eventsReported). */
  reported?: boolean;
}): Promise<MailFigures> {
  const [days, shards] = await Promise.all([store.mailDays(mailWindowFrom(to)), pace.shards()]);
  const open = shards.map(({ day, sent, throttled }): MailDay => ({ day, sent, throttled, bounced: 0, complained: 0 }));
  const { limits } = pace;
  const outlook = Number.isFinite(limits.ratePerSecond)
    ? mailOutlook(rows, { limits, provider: limits.provider ?? "the mail provider", shards, now })
    : null;
  return mailFigures([...days, ...open], to, outlook, reported);
}

const count = (n: number) => n.toLocaleString("en-US");

/**
 * The figures as lines of text (stats, the digest): the 7 days with their rates, the last day, the confirmations owed
 * at the provider's pace, then each warning.
 */
export function mailLines(figures: MailFigures, dayName: string): string[] {
  const { week, day, outlook } = figures;
  const window = `Mail, the ${mailWindowDays} days ${figures.from} to ${figures.to} (UTC): ${count(week.sent)} sent`;
  return [
    ...(figures.reported
      ? [
          `${window}, ${count(week.bounced)} bounced for good (${ratePercent(figures.bounceRate)}), ${count(week.complained)} marked as spam (${ratePercent(figures.complaintRate)})`,
          `${dayName}: ${count(day.sent)} sent, ${count(day.bounced)} bounced for good, ${count(day.complained)} marked as spam`,
        ]
      : [`${window}; ${notReported}`, `${dayName}: ${count(day.sent)} sent`]),
    ...(outlook ? outlookLines(outlook) : []),
    ...figures.warnings.map((line) => `Warning: ${line}`),
    ...(outlook?.advice ? [`Warning: ${outlook.advice}`] : []),
  ];
}
