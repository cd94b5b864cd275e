import { countedInvites, invitesByCode, isMember, isRestricted } from "../signup-life/rules";
import type { ListRow } from "../signup-life/types";
import { site } from "../../config/site";
import { launchToolWavesDue, type LaunchToolWave } from "../waves";
import { mailLines, type MailFigures } from "./mail-figures";

/*
 * `npm run waitlist -- stats`: the figures a founder asks for every morning, from the store of either deployment
 * alike, each counted by signup-life's rules (a member, an invite that counts).
 */

/** One wave of the launch (let-in): how many it let in, from when to when, and its e-mails not sent yet. */
export interface WaveFigures {
  wave: number;
  people: number;
  from: string;
  to: string;
  /** Owed by a run stopped half-way (let_in_mail "owed"): what the next let-in sends. */
  mailOwed: number;
  /** Under way when a run died (let_in_mail "sending"): it may have gone, so no run sends it again. */
  mailUnsure: number;
}

/** The waves so far, oldest first (those let in and still listed: a leaver's record is gone). */
export function waveFigures(signups: readonly Pick<ListRow, "wave" | "letInAt" | "letInMail">[]): WaveFigures[] {
  const waves = new Map<number, WaveFigures>();
  for (const { wave, letInAt, letInMail } of signups) {
    if (wave === null || letInAt === null) continue;
    const one = waves.get(wave) ?? { wave, people: 0, from: letInAt, to: letInAt, mailOwed: 0, mailUnsure: 0 };
    one.people++;
    if (letInAt < one.from) one.from = letInAt;
    if (letInAt > one.to) one.to = letInAt;
    if (letInMail === "owed") one.mailOwed++;
    if (letInMail === "sending") one.mailUnsure++;
    waves.set(wave, one);
  }
  return [...waves.values()].sort((a, b) => a.wave - b.wave);
}

/** The invite loop, as founders see it: codes and counts, never an invitee's address. */
export interface InviteFigures {
  /** Confirmed signups that came through an invite that counts (invites.ts), and that as a share of the confirmed. */
  confirmedThroughInvites: number;
  percentOfConfirmed: number;
  /** The inviters with the most confirmed invitees, by code. */
  topInviters: { code: string; confirmedInvites: number }[];
}

/**
 * The invite loop's figures, from every signup: each invite that counts (signup-life's countedInvites). One who
 * objected to being ranked by their invites is named among no top inviters.
 */
export function inviteFigures(signups: readonly ListRow[], top = 5): InviteFigures {
  const confirmed = signups.filter(isMember).length;
  const through = countedInvites(signups).length;
  const objected = new Set(signups.flatMap((one) => (one.rankingObjectedAt && one.inviteCode ? [one.inviteCode] : [])));
  return {
    confirmedThroughInvites: through,
    percentOfConfirmed: percentOf(through, confirmed),
    topInviters: [...invitesByCode(signups)]
      .filter(([code]) => !objected.has(code))
      .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
      .slice(0, top)
      .map(([code, count]) => ({ code, confirmedInvites: count })),
  };
}

export interface Share {
  name: string;
  signups: number;
  /** Of all signups, in per cent, one decimal. */
  percent: number;
  /** How many of them confirmed (double opt-in), and that as a share of them, in per cent, one decimal. */
  confirmed: number;
  confirmedPercent: number;
}

export interface WaitlistStats {
  /** The IANA time zone the days are in (TZ, else the machine's). */
  timeZone: string;
  total: number;
  /** Signups confirmed with the link in their e-mail, and those not (yet). */
  confirmed: number;
  unconfirmed: number;
  last24Hours: number;
  last7Days: number;
  /** Every local day of the window, oldest first, days without signups included. */
  days: { date: string; weekday: string; signups: number }[];
  /** utm_source, utm_campaign and ref: the most frequent first; "(none)" for signups without one. */
  sources: Share[];
  campaigns: Share[];
  referralTags: Share[];
  /** The confirmations sent, owed and refused; null when not asked for. */
  confirmations: { sent: number; pending: number; failed: number; lastError: string | null } | null;
  /** How many left through the leave link, a mail client or `remove`; null when not asked for. */
  left: number | null;
  /** How many entries of people let in were deleted after their wave (the retention); null when not asked for. */
  afterWave: number | null;
  /** Entries restricted (npm run waitlist -- restrict): kept, and counted in no other figure here. */
  restricted: number;
  /** How many were removed because they never confirmed (prune): they did not leave; null when not asked for. */
  pruned: number | null;
  invites: InviteFigures;
  /** The launch's waves so far (let-in), oldest first; none before the first. */
  waves: WaveFigures[];
  /** The waves handed to the launch tool longer ago than it may keep one: to be deleted there (waves.ts). */
  launchToolDue: LaunchToolWave[];
  /** The mail's last 7 days: sent, bounced for good, marked as spam, their rates and warnings; null when not asked for. */
  mail: MailFigures | null;
}

export const none = "(none)";
const topCount = 5;
const dayMs = 86_400_000;

const quarterHourMs = 900_000;

/**
 * The local calendar date (YYYY-MM-DD) of an instant in `timeZone`. One
 * formatter per call, asked once per quarter of an hour (every time zone's
 * offset is a whole number of those): a formatter per signup took 17 s and
 * 2 GB for 100,000 signups.
 */
export function localDates(timeZone: string): (time: number) => string {
  const format = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
  const known = new Map<number, string>();
  return (time) => {
    const quarter = Math.floor(time / quarterHourMs);
    let date = known.get(quarter);
    if (date === undefined) known.set(quarter, (date = format.format(new Date(quarter * quarterHourMs))));
    return date;
  };
}

/** The calendar date `days` before `date` (YYYY-MM-DD), by the calendar, whatever the clocks did. */
function daysBefore(date: string, days: number): string {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day - days)).toISOString().slice(0, 10);
}

const weekdayOf = (date: string) =>
  new Intl.DateTimeFormat("en-US", { weekday: "short", timeZone: "UTC" }).format(new Date(`${date}T00:00:00Z`));

/**
 * Every local day of the `days` ending today, oldest first, with how many of `times` (ms since the epoch) fell on
 * each: days without any included.
 */
export function perLocalDay(
  times: readonly number[],
  { now, days, timeZone }: { now: Date; days: number; timeZone: string },
): { date: string; weekday: string; count: number }[] {
  const localDate = localDates(timeZone);
  const perDay = new Map<string, number>();
  for (const time of times) {
    const date = localDate(time);
    perDay.set(date, (perDay.get(date) ?? 0) + 1);
  }
  const today = localDate(now.getTime());
  return Array.from({ length: days }, (_, index) => {
    const date = daysBefore(today, days - 1 - index);
    return { date, weekday: weekdayOf(date), count: perDay.get(date) ?? 0 };
  });
}

/** `part` as a percentage of `whole`, to a tenth; 0 of nothing. */
export const percentOf = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10);

/** The most frequent values first (ties by name), the rest summed up as "(others)"; with how many confirmed. */
function shares(signups: readonly ListRow[], valueOf: (signup: ListRow) => string | null): Share[] {
  const counts = new Map<string, { signups: number; confirmed: number }>();
  for (const signup of signups) {
    const name = valueOf(signup) ?? none;
    const count = counts.get(name) ?? { signups: 0, confirmed: 0 };
    count.signups++;
    if (isMember(signup)) count.confirmed++;
    counts.set(name, count);
  }
  const sorted = [...counts].sort(([a, m], [b, n]) => n.signups - m.signups || a.localeCompare(b));
  const rows = sorted.slice(0, topCount);
  const rest = sorted
    .slice(topCount)
    .reduce(
      (sum, [, count]) => ({ signups: sum.signups + count.signups, confirmed: sum.confirmed + count.confirmed }),
      { signups: 0, confirmed: 0 },
    );
  if (rest.signups > 0) rows.push(["(others)", rest]);
  return rows.map(([name, { signups: count, confirmed }]) => ({
    name,
    signups: count,
    percent: percentOf(count, signups.length),
    confirmed,
    confirmedPercent: percentOf(confirmed, count),
  }));
}

export function waitlistStats(
  signups: readonly ListRow[],
  {
    now = new Date(),
    days = 30,
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone,
    confirmations = null,
    left = null,
    pruned = null,
    afterWave = null,
    mail = null,
  }: {
    now?: Date;
    days?: number;
    timeZone?: string;
    confirmations?: WaitlistStats["confirmations"];
    left?: number | null;
    pruned?: number | null;
    afterWave?: number | null;
    mail?: MailFigures | null;
  } = {},
): WaitlistStats {
  // A restricted entry is used for nothing else: it is counted here, and in no other figure.
  const restricted = signups.filter(isRestricted).length;
  signups = signups.filter((signup) => !isRestricted(signup));
  const times = signups.map((signup) => Date.parse(signup.createdAt));
  const confirmed = signups.filter(isMember).length;
  return {
    timeZone,
    total: signups.length,
    confirmed,
    unconfirmed: signups.length - confirmed,
    last24Hours: times.filter((time) => time > now.getTime() - dayMs && time <= now.getTime()).length,
    last7Days: times.filter((time) => time > now.getTime() - 7 * dayMs && time <= now.getTime()).length,
    days: perLocalDay(times, { now, days, timeZone }).map(({ date, weekday, count }) => ({
      date,
      weekday,
      signups: count,
    })),
    sources: shares(signups, (signup) => signup.utmSource),
    campaigns: shares(signups, (signup) => signup.utmCampaign),
    referralTags: shares(signups, (signup) => signup.ref),
    confirmations,
    left,
    pruned,
    afterWave,
    restricted,
    invites: inviteFigures(signups),
    waves: waveFigures(signups),
    launchToolDue: launchToolWavesDue(signups, now),
    mail,
  };
}

const barWidth = 40;
const count = (n: number) => n.toLocaleString("en-US");

/**
 * The figures as a founder reads them, within 80 columns: each day's bar
 * scaled to the busiest day (any day with a signup gets at least one block),
 * and the exact number beside it.
 */
export function renderStats(stats: WaitlistStats, { from = "this store" }: { from?: string } = {}): string {
  const lines: string[] = [];
  const busiest = Math.max(0, ...stats.days.map((day) => day.signups));
  lines.push(`Waitlist (${from}): ${count(stats.total)} ${stats.total === 1 ? "signup" : "signups"}`);
  lines.push(`  confirmed      ${count(stats.confirmed)} (${percentOf(stats.confirmed, stats.total).toFixed(1)} %)`);
  lines.push(`  last 24 hours  ${count(stats.last24Hours)}`);
  lines.push(`  last 7 days    ${count(stats.last7Days)}`);
  if (stats.left !== null) lines.push(`  left the list  ${count(stats.left)}`);
  if (stats.pruned !== null) lines.push(`  pruned         ${count(stats.pruned)} (never confirmed)`);
  if (stats.afterWave) lines.push(`  after a wave   ${count(stats.afterWave)} (deleted after their wave)`);
  if (stats.restricted > 0) {
    lines.push(`  restricted     ${count(stats.restricted)} (kept, used for nothing else: in no figure here)`);
  }
  lines.push("", `Signups per day, last ${stats.days.length} days (${stats.timeZone})`);
  for (const day of stats.days) {
    const length = day.signups === 0 ? 0 : Math.max(1, Math.round((day.signups / busiest) * barWidth));
    lines.push(`  ${day.date} ${day.weekday}  ${"█".repeat(length).padEnd(barWidth)} ${count(day.signups)}`);
  }
  const table = (title: string, rows: Share[]) => {
    if (rows.length === 0) return;
    lines.push("", `${title}: signups, share, confirmed, share confirmed`);
    const nameWidth = Math.min(32, Math.max(...rows.map((row) => Array.from(row.name).length)));
    for (const row of rows) {
      const name = Array.from(row.name).slice(0, nameWidth).join("").padEnd(nameWidth);
      const share = (percent: number) => `${percent.toFixed(1).padStart(5)} %`;
      lines.push(
        `  ${name}  ${count(row.signups).padStart(7)}  ${share(row.percent)}  ${count(row.confirmed).padStart(7)}  ${share(row.confirmedPercent)}`,
      );
    }
  };
  table("Top sources (utm_source)", stats.sources);
  table("Top campaigns (utm_campaign)", stats.campaigns);
  table("Referral tags (ref)", stats.referralTags);
  const { invites } = stats;
  lines.push(
    "",
    `Invites: ${count(invites.confirmedThroughInvites)} confirmed signups came through one (${invites.percentOfConfirmed.toFixed(1)} % of the confirmed)`,
  );
  for (const { code, confirmedInvites: n } of invites.topInviters) {
    lines.push(`  ${code}  ${count(n).padStart(7)} confirmed ${n === 1 ? "invitee" : "invitees"}`);
  }
  if (stats.waves.length > 0) {
    const people = stats.waves.reduce((sum, wave) => sum + wave.people, 0);
    lines.push(
      "",
      `Let in: ${count(people)} in ${count(stats.waves.length)} ${stats.waves.length === 1 ? "wave" : "waves"}`,
    );
    for (const { wave, people: n, from, mailOwed, mailUnsure } of stats.waves) {
      const owed =
        (mailOwed > 0
          ? `, ${count(mailOwed)} ${mailOwed === 1 ? "e-mail" : "e-mails"} not sent yet (run let-in again)`
          : "") + (mailUnsure > 0 ? `, ${count(mailUnsure)} unsure (a run died sending them)` : "");
      lines.push(
        `  wave ${String(wave).padStart(3)}  ${count(n).padStart(7)}  ${from.slice(0, 16).replace("T", " ")} UTC${owed}`,
      );
    }
  }
  // The Privacy Policy's promise that the tool keeps a wave for its e-mail only: said on every run, for the store
  // cannot know when the founders deleted it there.
  const { launchToolRetentionDays: days } = site.waitlist;
  for (const { wave, letInAt, daysAgo } of stats.launchToolDue) {
    lines.push(
      `  Delete wave ${wave} from the launch mail tool if you have not: it went there on ${letInAt.slice(0, 10)}, ${daysAgo} days ago, and the Privacy Policy lets the tool keep a wave ${days} days after its e-mail at most.`,
    );
  }
  if (stats.confirmations) {
    const { sent, pending, failed, lastError } = stats.confirmations;
    lines.push("", `Confirmations: ${count(sent)} sent, ${count(pending)} pending, ${count(failed)} refused for good`);
    if (lastError) lines.push(`  last error: ${lastError.slice(0, 64)}`);
  }
  if (stats.mail) {
    const [week, ...rest] = mailLines(stats.mail, "Today so far (UTC)");
    lines.push("", week!, ...rest.map((line) => `  ${line}`));
  }
  return lines.join("\n");
}
