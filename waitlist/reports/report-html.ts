import { createHash } from "node:crypto";
import escapeHtml from "escape-html";
import { site } from "../../config/site";
import type { ReportFigures } from "./report";
import { mailWindowDays, notReported, ratePercent, type MailFigures } from "./mail-figures";
import { outlookLines } from "./mail-outlook";
import { funnelStages, type ReportCharts } from "./report-charts";
import { percentOf, type Share, type WaveFigures } from "./stats";

/*
 * The report as one HTML file that opens offline in any browser: its charts inline as SVG (report-charts.ts), each
 * named for assistive technology and followed by a table of the same figures, and its one stylesheet inline. The
 * page's own policy lets it load nothing at all: no script, no font, no image, nothing from anywhere.
 */

const { colors } = site;
const count = (n: number) => n.toLocaleString("en-US");
const percent = (n: number) => `${n.toFixed(1)}\u00a0%`;
const share = (part: number, whole: number) => percent(percentOf(part, whole));

const style = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: ${colors.ink}; background: ${colors.paper}; }
header, main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
header { border-bottom: 1px solid ${colors.line}; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 0.25rem; }
h2 { font-size: 1.3rem; line-height: 1.25; margin: 2rem 0 0.5rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
p { margin: 0.5rem 0; }
.soft { color: ${colors.inkSoft}; }
.pair { display: grid; gap: 1rem 2rem; align-items: start; }
@media (min-width: 60rem) { .pair { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
figure { margin: 0; min-width: 0; }
svg { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.875rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-size: 1rem; font-weight: 600; padding-bottom: 0.25rem; }
th, td { padding: 0.2rem 0.3rem; border-bottom: 1px solid ${colors.line}; text-align: right; white-space: nowrap; }
thead th { vertical-align: bottom; white-space: normal; }
thead th:first-child { text-align: left; }
tbody th { min-width: 7em; font-weight: normal; text-align: left; white-space: normal; overflow-wrap: anywhere; }
code { font-size: 0.95em; }
@media (max-width: 30rem) { header, main { padding: 0.75rem; } }
@media print { section { break-inside: avoid-page; } }
`;

/** An SVG from Vega, made a named image of the page: its root tag replaced, its size kept as its viewBox. */
function chart(svg: string, label: string): string {
  const root = /^<svg\b[^>]*\bwidth="(\d+(?:\.\d+)?)" height="(\d+(?:\.\d+)?)"[^>]*>/.exec(svg);
  if (!root) throw new Error(`Vega drew no SVG this report knows: ${svg.slice(0, 80)}`);
  const [tag, width, height] = root as unknown as [string, string, string];
  const named = `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(label)}">`;
  return `<figure>${named}${svg.slice(tag.length)}</figure>`;
}

function table(caption: string, head: string[], rows: (string | number)[][]): string {
  const cell = (value: string | number) => (typeof value === "number" ? count(value) : escapeHtml(value));
  return [
    `<table><caption>${escapeHtml(caption)}</caption>`,
    `<thead><tr>${head.map((name) => `<th scope="col">${escapeHtml(name)}</th>`).join("")}</tr></thead><tbody>`,
    ...rows.map(
      ([first, ...rest]) =>
        `<tr><th scope="row">${cell(first!)}</th>${rest.map((value) => `<td>${cell(value)}</td>`).join("")}</tr>`,
    ),
    "</tbody></table>",
  ].join("\n");
}

function sharesSection(title: string, tag: string, svg: string | undefined, shares: Share[]): string {
  const heading = `<h3>${escapeHtml(title)} (<code>${tag}</code>)</h3>`;
  if (!svg) return `${heading}\n<p>No signups yet.</p>`;
  const names = shares.map((row) => `${row.name} ${count(row.signups)} (${count(row.confirmed)} confirmed)`);
  return `${heading}
<div class="pair">
${chart(svg, `Bar chart: signups by ${tag}, each with how many confirmed: ${names.join(", ")}. The table beside it has the same figures.`)}
${table(
  `Signups by ${tag}`,
  ["Tag", "Signups (share of all)", "Confirmed (share of them)"],
  shares.map((row) => [
    row.name,
    `${count(row.signups)} (${percent(row.percent)})`,
    `${count(row.confirmed)} (${percent(row.confirmedPercent)})`,
  ]),
)}
</div>`;
}

/** An instant as the page gives it, to the minute in UTC, as the page says when it was read. */
const minute = (at: string) => `${at.slice(0, 10)} ${at.slice(11, 16)}`;

/** When a wave let its people in: one minute, as a run lets in a wave at once, or from one to another. */
function waveTime({ from, to }: WaveFigures): string {
  if (minute(from) === minute(to)) return minute(from);
  return `${minute(from)} to ${from.slice(0, 10) === to.slice(0, 10) ? to.slice(11, 16) : minute(to)}`;
}

/** The launch's waves (let-in): a table of each, or a line saying none has been let in yet. */
function wavesSection(waves: WaveFigures[]): string {
  const heading = `<h2 id="waves">Let in, a wave at a time</h2>`;
  if (waves.length === 0) {
    return `${heading}
<p>No one has been let in yet: <code>npm run waitlist -- let-in --count N</code> lets the next N confirmed signups in, as one wave.</p>`;
  }
  const people = waves.reduce((sum, wave) => sum + wave.people, 0);
  return `${heading}
<p>${count(people)} ${people === 1 ? "person" : "people"} let in, in ${count(waves.length)} ${waves.length === 1 ? "wave" : "waves"}; those who left since are not counted. An e-mail not sent yet is one the next <code>let-in</code> sends before it starts a new wave; an unsure one was being sent when a run died, may have gone, and is never sent again (<code>export --record</code> shows which).</p>
${table(
  "The waves",
  ["Wave", "People let in", "When (UTC)", "E-mails not sent yet", "Unsure"],
  waves.map((wave) => [wave.wave, wave.people, waveTime(wave), wave.mailOwed, wave.mailUnsure]),
)}`;
}

/** The mail's last 7 days: sent, bounced for good, marked as spam, their rates, and any warning first. */
function mailSection(mail: MailFigures): string {
  const warned = [...mail.warnings, ...(mail.outlook?.advice ? [mail.outlook.advice] : [])];
  const warnings = warned.map((line) => `<p><strong>Warning:</strong> ${escapeHtml(line)}</p>`).join("\n");
  // The mail owed at the provider's pace, read when the report was made.
  const outlook = mail.outlook ? outlookLines(mail.outlook).map((line) => `<p>${escapeHtml(line)}.</p>`) : [];
  return `<h2 id="mail">The mail: its pace, bounces and complaints</h2>
${warnings}
${outlook.join("\n")}
<p>The mail of the ${mailWindowDays} days from ${mail.from} to ${mail.to} (UTC), as a provider judges the account: Amazon SES reviews it at 5&nbsp;% bounces for good or 0.1&nbsp;% complaints. An address that bounced for good is never mailed again; one that marked our mail as spam is removed from the list.</p>
${table(
  "The mail",
  ["Days", "Sent", "Bounced for good", "Marked as spam"],
  mail.reported
    ? [
        [
          `${mailWindowDays} days`,
          mail.week.sent,
          `${mail.week.bounced} (${ratePercent(mail.bounceRate)})`,
          `${mail.week.complained} (${ratePercent(mail.complaintRate)})`,
        ],
        [mail.to, mail.day.sent, mail.day.bounced, mail.day.complained],
      ]
    : // No event route: a zero would read as a clean record the site cannot know of.
      [
        [`${mailWindowDays} days`, mail.week.sent, "not reported", "not reported"],
        [mail.to, mail.day.sent, "not reported", "not reported"],
      ],
)}${mail.reported ? "" : `\n<p>${escapeHtml(notReported.replace(/^b/, "B"))}.</p>`}`;
}

/** The report's page: the figures, and their charts drawn to SVG. `from` names the store, as `stats` does. */
export function reportHtml(figures: ReportFigures, charts: ReportCharts, { from }: { from: string }): string {
  const { days, funnel, invites } = figures;
  const [first, last] = [days[0]!, days[days.length - 1]!];
  const signups = days.reduce((sum, day) => sum + day.signups, 0);
  const confirmations = days.reduce((sum, day) => sum + day.confirmations, 0);
  const read = `${minute(figures.at)} UTC`;
  const stages = funnelStages(funnel);
  const title = `${site.name} waitlist: report of ${read.slice(0, 10)}`;
  const body = `<header>
<h1>${escapeHtml(title)}</h1>
<p class="soft">From ${escapeHtml(from)}, read ${read}. Days are local to ${escapeHtml(figures.timeZone)}. Counts, campaign tags and invite codes only: this report holds no e-mail address.</p>
</header>
<main>
<section aria-labelledby="per-day">
<h2 id="per-day">Signups and confirmations per day</h2>
<p>${count(signups)} signups and ${count(confirmations)} confirmations in the ${days.length} days from ${first.date} to ${last.date}. A confirmation counts on the day the link was pressed; those who left since are not counted.</p>
<div class="pair">
${chart(charts.perDay, `Two bar charts over the days from ${first.date} to ${last.date}: signups per day (${count(signups)} in all), and confirmations per day (${count(confirmations)}). The table beside it has each day's figures.`)}
${table(
  "Each day",
  ["Day", "Signups", "Confirmations"],
  days.map((day) => [`${day.date} ${day.weekday}`, day.signups, day.confirmations]),
)}
</div>
</section>
<section aria-labelledby="funnel">
<h2 id="funnel">From signup to confirmed</h2>
<p>Every signup ever stored, and where it is now: on the list, confirmed or not (yet), or gone, because the person left the list or because they never confirmed and it pruned them. Those four add up to those who signed up; one who left and signed up again counts twice.</p>
<div class="pair">
${chart(charts.funnel, `Bar chart: ${stages.map((stage) => `${stage.label} ${count(stage.count)}`).join(", ")}. The table beside it has the same figures.`)}
${table(
  "The funnel",
  ["Stage", "Signups", "Share"],
  stages.map((stage) => [stage.label, stage.count, share(stage.count, funnel.signedUp)]),
)}
</div>
</section>
<section aria-labelledby="sources">
<h2 id="sources">Where signups come from</h2>
<p>The tags of the link each signup came by: the five most frequent, then the rest as (others); (none) for signups without one. A tag holding an e-mail address is shown as hidden.</p>
${sharesSection("Sources", "utm_source", charts.sources, figures.sources)}
${sharesSection("Campaigns", "utm_campaign", charts.campaigns, figures.campaigns)}
${sharesSection("Referral tags", "ref", charts.referralTags, figures.referralTags)}
</section>
<section aria-labelledby="invites">
<h2 id="invites">The invite loop</h2>
<p>${count(invites.confirmedThroughInvites)} of the ${count(invites.confirmed)} confirmed signups (${percent(invites.percentOfConfirmed)}) came through an invite. An inviter counts one confirmed invitee per mailbox, never their own.</p>
${
  charts.topInviters
    ? `<div class="pair">
${chart(charts.topInviters, `Bar chart: the top inviters by invite code, with their confirmed invitees: ${invites.topInviters.map((row) => `${row.code} ${count(row.confirmedInvites)}`).join(", ")}. The table beside it has the same figures.`)}
${table(
  "Top inviters",
  ["Invite code", "Confirmed invitees"],
  invites.topInviters.map((row) => [row.code, row.confirmedInvites]),
)}
</div>`
    : "<p>No confirmed signup came through an invite yet.</p>"
}
</section>
<section aria-labelledby="waves">
${wavesSection(figures.waves)}
</section>
${figures.mail ? `<section aria-labelledby="mail">\n${mailSection(figures.mail)}\n</section>\n` : ""}</main>`;
  const hash = createHash("sha256").update(style).digest("base64");
  // Nothing to fetch, and the page says so to the browser: whatever tried would be refused, offline or not.
  const policy = `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
