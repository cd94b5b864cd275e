import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { countedInvites, isMember, isRestricted, letInRetentionMs, pastItsWave } from "../signup-life/rules";
import type { MailMessage } from "../mail/confirmation-message";
import type { Mailer } from "../mail/mailer";
import { mailHtml, messageIdFor, paragraph as p } from "../mail/message-frame";
import type { WaitlistSite } from "../site-settings";
import { waveFigures } from "./stats";
import { mailFigures, mailLines, readMailFigures, type MailFigures } from "./mail-figures";
import { unlimitedPace, type MailPace } from "../mail/pace";
import { sendToFounders } from "../mail/sender";
import type { FullStore } from "../stores/store";
import type { DepartureCounts, ListRow } from "../signup-life/types";

/*
 * The founders' daily digest (FOUNDERS_DIGEST_TO): yesterday's signups, confirmations, leaves, invites and, once the
 * launch has waves, those let in, and the totals; and the mail's bounces and complaints over 7 days, with a warning
 * near a provider's limit, mailed once a day per deployment whatever the number of servers or
 * function instances (the store's `once`), by npm start's hourly pass and Netlify's daily function. Figures only: no
 * address of anyone on the list.
 */

export interface DigestFigures {
  /** The UTC day the figures are of, YYYY-MM-DD: yesterday. */
  day: string;
  signups: number;
  confirmations: number;
  left: number;
  pruned: number;
  /** Entries of people let in, deleted after their wave (the retention). */
  afterWave: number;
  /** Signups that confirmed that day having come by an invite that counts (invites.ts). */
  invites: number;
  totals: { signups: number; confirmed: number; left: number; pruned: number; afterWave: number; invited: number };
  /** The launch's waves (let-in); null before the first, and the digest says nothing of them then. */
  letIn: LetInFigures | null;
  /** The mail of the 7 days to `day`: sent, bounced for good, marked as spam, the rates and any warning. */
  mail: MailFigures;
}

export interface LetInFigures {
  /** How many were let in that day, and the waves they were let in with, in order. */
  day: number;
  dayWaves: number[];
  /** How many were let in so far and are still listed, in how many waves, and their e-mails not sent yet. */
  total: number;
  waves: number;
  mailOwed: number;
  /**
   * Entries kept more than a day past their days after the wave (the retention's lag: on Netlify, the daily pass
   * removes a batch in its seconds), with how many days the oldest is over; none: 0 and 0.
   */
  overdue: { entries: number; daysOver: number };
}

const dayMs = 86_400_000;
const inDay = (day: string, at: string | null) => at !== null && at.slice(0, 10) === day;
const sum = (numbers: number[]) => numbers.reduce((total, n) => total + n, 0);

/** Those let in on `day` and so far, as stats counts the waves (waveFigures); null before the first wave. */
function letInFigures(signups: readonly ListRow[], day: string): LetInFigures | null {
  const waves = waveFigures(signups);
  if (waves.length === 0) return null;
  const ofDay = waveFigures(signups.filter((one) => inDay(day, one.letInAt)));
  return {
    day: sum(ofDay.map((wave) => wave.people)),
    dayWaves: ofDay.map((wave) => wave.wave),
    total: sum(waves.map((wave) => wave.people)),
    waves: waves.length,
    mailOwed: sum(waves.map((wave) => wave.mailOwed)),
    overdue: overdueAfterWave(signups, day),
  };
}

/** Those let in whose entry should be gone a day ago or more at the end of `day` (pastItsWave), and the oldest's lag. */
function overdueAfterWave(signups: readonly ListRow[], day: string): LetInFigures["overdue"] {
  const end = Date.parse(`${day}T00:00:00Z`) + dayMs;
  const due = signups.filter((one) => pastItsWave(one, new Date(end - letInRetentionMs - dayMs)));
  if (due.length === 0) return { entries: 0, daysOver: 0 };
  const oldest = Math.min(...due.map((one) => Date.parse(one.letInAt!)));
  return { entries: due.length, daysOver: Math.floor((end - letInRetentionMs - oldest) / dayMs) };
}

/** The digest's sentence on the waves: which that day, how many so far, and any e-mail not sent yet. */
function wavesLine(day: string, letIn: LetInFigures): string {
  const numbers = letIn.dayWaves.map(String);
  const and = numbers.length < 2 ? numbers.join("") : `${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}`;
  const named =
    numbers.length === 0
      ? `No wave on ${day}`
      : `Let in on ${day} with ${numbers.length === 1 ? "wave" : "waves"} ${and}`;
  const owed =
    letIn.mailOwed > 0
      ? ` ${letIn.mailOwed} ${letIn.mailOwed === 1 ? "e-mail" : "e-mails"} of a wave not sent yet: run npm run waitlist -- let-in again.`
      : "";
  const { entries, daysOver } = letIn.overdue;
  const overdue =
    entries > 0
      ? ` ${entries} ${entries === 1 ? "entry is" : "entries are"} still kept past the ${site.waitlist.letInRetentionDays} days after their wave that the Privacy Policy allows, the oldest by ${daysOver} days: the daily pass removes a batch at a time; npm run waitlist -- prune --unconfirmed-older-than ${site.waitlist.unconfirmedRetentionDays}d (with --netlify on Netlify) removes them all now.`
      : "";
  return `${named}; ${letIn.waves} ${letIn.waves === 1 ? "wave" : "waves"} so far.${owed}${overdue}`;
}

/** The figures of `day` and the totals of now, from every signup (a founders' read, once a day). */
export function digestFigures(
  everyone: readonly ListRow[],
  departures: { day: DepartureCounts; total: DepartureCounts },
  day: string,
  mail: MailFigures = mailFigures([], day),
): DigestFigures {
  // A restricted entry is used for nothing else: in no figure here.
  const signups = everyone.filter((one) => !isRestricted(one));
  const invites = countedInvites(signups);
  return {
    day,
    signups: signups.filter((one) => inDay(day, one.createdAt)).length,
    confirmations: signups.filter((one) => inDay(day, one.confirmedAt)).length,
    ...departures.day,
    invites: invites.filter((one) => inDay(day, one.confirmedAt)).length,
    totals: {
      signups: signups.length,
      confirmed: signups.filter(isMember).length,
      ...departures.total,
      invited: invites.length,
    },
    letIn: letInFigures(signups, day),
    mail,
  };
}

/** The digest as an e-mail to every founder at once: plain figures, no address of anyone on the list. */
export function digestMessage(to: readonly string[], figures: DigestFigures, { siteUrl }: WaitlistSite): MailMessage {
  const { totals } = figures;
  const rows: [string, number, number][] = [
    ["Signups", figures.signups, totals.signups],
    ["Confirmations", figures.confirmations, totals.confirmed],
    ["Left", figures.left, totals.left],
    ["Pruned, never confirmed", figures.pruned, totals.pruned],
    ...(totals.afterWave > 0
      ? [["Deleted after their wave", figures.afterWave, totals.afterWave] as [string, number, number]]
      : []),
    ["Confirmed through an invite", figures.invites, totals.invited],
  ];
  const { letIn } = figures;
  if (letIn) rows.push(["Let in", letIn.day, letIn.total]);
  const waves = letIn ? wavesLine(figures.day, letIn) : undefined;
  const mail = mailLines(figures.mail, `On ${figures.day}`);
  // A warning names itself in the subject too: it is what a founder must not miss.
  const { warnings, outlook } = figures.mail;
  const warned = letIn?.overdue.entries
    ? ", entries kept past their wave"
    : outlook?.expireUnmailed
      ? ", confirmations late at the mail's pace"
      : outlook?.hold && outlook.hold.reason !== "throttle"
        ? ", mail held by the provider"
        : warnings.length > 0
          ? ", mail near a provider's limit"
          : "";
  const subject = `${site.name} waitlist, ${figures.day}: ${figures.signups} signups, ${figures.confirmations} confirmed${letIn?.day ? `, ${letIn.day} let in` : ""}${warned}`;
  const text = `The ${site.name} waitlist on ${figures.day} (UTC), and in all:

${rows.map(([name, day, total]) => `${name}: ${day} (in all ${total})`).join("\n")}
${waves ? `\n${waves}\n` : ""}
${mail.join("\n")}

More: npm run waitlist -- stats, or -- report --out report.html.
`;
  const card = `<h1 style="margin:0 0 12px;font-size:22px;line-height:1.25;">${escapeHtml(`The waitlist on ${figures.day}`)}</h1>
<table style="border-collapse:collapse;margin:0 0 16px;" role="presentation">
${rows
  .map(
    ([name, day, total]) =>
      `<tr><td style="padding:4px 16px 4px 0;">${escapeHtml(name)}</td><td style="padding:4px 16px 4px 0;text-align:right;font-weight:700;">${day}</td><td style="padding:4px 0;text-align:right;color:${site.colors.inkSoft};">in all ${total}</td></tr>`,
  )
  .join("\n")}
</table>
${waves ? `<p style="${p}">${escapeHtml(waves)}</p>\n` : ""}${mail.map((line) => `<p style="${p}">${escapeHtml(line)}</p>`).join("\n")}
<p style="${p}">More: <code>npm run waitlist -- stats</code>, or <code>-- report --out report.html</code>.</p>`;
  return {
    to: to.join(", "),
    subject,
    text,
    html: mailHtml(
      subject,
      card,
      `The founders' daily digest of ${siteUrl.replace(/^https?:\/\//, "")} (FOUNDERS_DIGEST_TO).`,
    ),
    messageId: messageIdFor("digest", figures.day, siteUrl),
    headers: {},
  };
}

/**
 * Yesterday's digest (UTC) to `to`, unless the store says this deployment sent it already (or `to` is empty).
 * Resolves whether it was sent. Taken before it is sent: a crash in between loses a day's digest, never doubles it.
 */
export async function sendFoundersDigest({
  store,
  mailer,
  to,
  now = new Date(),
  site: siteSettings,
  pace = unlimitedPace,
  reported = true,
}: {
  store: Pick<FullStore, "once" | "listRows" | "departureCounts" | "mailDays">;
  mailer: Pick<Mailer, "send">;
  to: readonly string[];
  now?: Date;
  site: WaitlistSite;
  /** The pace the site's mail keeps, for the day's count and the mail owed; none for the outbox folder. */
  pace?: MailPace;
  /** Whether a provider's event route brings bounces and complaints (mail-figures.ts, eventsReported). */
  reported?: boolean;
}): Promise<boolean> {
  if (to.length === 0) return false;
  const today = new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  const yesterday = new Date(today.getTime() - dayMs);
  const day = yesterday.toISOString().slice(0, 10);
  if (!(await store.once(`digest-${day}`))) return false;
  const [signups, dayDepartures, total] = await Promise.all([
    store.listRows(),
    store.departureCounts({ from: yesterday, to: today }),
    store.departureCounts(),
  ]);
  const mail = await readMailFigures({ store, pace, rows: signups, to: day, now, reported });
  const figures = digestFigures(signups, { day: dayDepartures, total }, day, mail);
  await sendToFounders(digestMessage(to, figures, siteSettings), { mailer, pace });
  return true;
}
