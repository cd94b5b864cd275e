import { inviteFigures, localDates, perLocalDay, waitlistStats, type InviteFigures, type Share } from "./stats";
import type { WaveFigures } from "./stats";
import { isRestricted } from "../signup-life/rules";
import type { ListRow } from "../signup-life/types";
import type { MailFigures } from "./mail-figures";

/*
 * `npm run waitlist -- report`: the list's growth and the launch's waves as one plain object, from the store's
 * whole-list reads (listRows, departureCounts). report-html.ts draws it. Codes, tags and counts only: no address is
 * read, and a tag that holds one (`?ref=ada@example.com`) is shown as hidden.
 */

export interface ReportFigures {
  /** The IANA time zone the days are in (TZ, else the machine's), and when the figures were read (UTC). */
  timeZone: string;
  at: string;
  /** Every local day of the window, oldest first: the signups made that day, and the confirmations. */
  days: { date: string; weekday: string; signups: number; confirmations: number }[];
  /**
   * Where every signup ever stored is now: each one is on the list (confirmed or not yet) or was removed (left,
   * pruned because it never confirmed, or deleted after its wave), so the five add up to `signedUp`. One who left and
   * came back is two; a restricted entry is in none.
   */
  funnel: { signedUp: number; confirmed: number; unconfirmed: number; left: number; pruned: number; afterWave: number };
  /** utm_source, utm_campaign and ref, as `stats` gives them: the five most frequent, then "(others)". */
  sources: Share[];
  campaigns: Share[];
  referralTags: Share[];
  /** The invite loop (stats.ts), with the confirmed signups its share is of. */
  invites: InviteFigures & { confirmed: number };
  /** The launch's waves so far (let-in), as `stats` gives them: oldest first, none before the first. */
  waves: WaveFigures[];
  /** The mail's last 7 days (mail-figures.ts), as `stats` gives them; null when not asked for. */
  mail: MailFigures | null;
}

/** What a tag that holds an address is shown as. */
export const hiddenTag = "(hidden: an e-mail address)";
const addressShaped = /[^\s@]+@[^\s@]+\.[^\s@]+/;
const hideAddress = (tag: string | null) => (tag !== null && addressShaped.test(tag) ? hiddenTag : tag);

/** The longest window, as `stats --days` allows; a list older than that is drawn for its last 366 days. */
export const maxReportDays = 366;
const dayMs = 86_400_000;

/** How many calendar days from `first` to `last` (YYYY-MM-DD), both counted. */
const daysFrom = (first: string, last: string) => Math.round((Date.parse(last) - Date.parse(first)) / dayMs) + 1;

/**
 * The report's figures. `days`: the window, the last N local days; by default every day since the first signup
 * (at least a week, at most `maxReportDays`).
 */
export function reportFigures(
  signups: readonly ListRow[],
  { left, pruned, afterWave = 0 }: { left: number; pruned: number; afterWave?: number },
  {
    now = new Date(),
    days,
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone,
    topInviters = 10,
    mail = null,
  }: { now?: Date; days?: number; timeZone?: string; topInviters?: number; mail?: MailFigures | null } = {},
): ReportFigures {
  // A restricted entry is used for nothing else (stats.ts counts it, and nothing more).
  const rows = signups
    .filter((signup) => !isRestricted(signup))
    .map((signup) => ({
      ...signup,
      utmSource: hideAddress(signup.utmSource),
      utmCampaign: hideAddress(signup.utmCampaign),
      ref: hideAddress(signup.ref),
    }));
  const localDate = localDates(timeZone);
  // A loop, not Math.min(...times): a spread of 100,000 arguments can overflow the stack.
  let first = now.getTime();
  for (const row of rows) first = Math.min(first, Date.parse(row.createdAt));
  const window = days ?? Math.min(maxReportDays, Math.max(7, daysFrom(localDate(first), localDate(now.getTime()))));
  const stats = waitlistStats(rows, { now, days: window, timeZone });
  const confirmations = perLocalDay(
    rows.flatMap((row) => (row.confirmedAt === null ? [] : [Date.parse(row.confirmedAt)])),
    { now, days: window, timeZone },
  );
  return {
    timeZone,
    at: now.toISOString(),
    days: stats.days.map((day, index) => ({ ...day, confirmations: confirmations[index]!.count })),
    funnel: {
      signedUp: stats.total + left + pruned + afterWave,
      confirmed: stats.confirmed,
      unconfirmed: stats.unconfirmed,
      left,
      pruned,
      afterWave,
    },
    sources: stats.sources,
    campaigns: stats.campaigns,
    referralTags: stats.referralTags,
    invites: { ...inviteFigures(rows, topInviters), confirmed: stats.confirmed },
    waves: stats.waves,
    mail,
  };
}
