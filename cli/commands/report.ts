import { reportFigures } from "../../waitlist/reports/report";
import { readMailFigures } from "../../waitlist/reports/mail-figures";
import { reportedOf } from "./reads";
import { paceOf } from "../open-store";
import { reportCharts } from "../../waitlist/reports/report-charts";
import { reportHtml } from "../../waitlist/reports/report-html";
import { writePrivateFile } from "../../waitlist/private-file";
import { command } from "../command";
import { UsageError } from "../errors";
import { privateFileTarget } from "../out-file";
import { daysOption } from "./reads";

/*
 * A picture of the list's growth, as one HTML file. A whole-list read, like stats: every signup's time, tags, invites
 * and wave once (listRows; about one blob per thousand signups on Netlify Blobs), and the departures' two counts.
 */

export const report = command({
  name: "report",
  usage: [
    "report --out FILE.html [--days N]",
    "the list's growth as one HTML file that opens offline: signups and",
    "confirmations per day (every day since the first signup, or the last N),",
    "the funnel, sources, campaigns, referral tags, the invite loop and",
    "the launch's waves (how many each let in, and when), and the mail's",
    "bounces and complaints over 7 days",
  ],
  check: ({ out, days }) => {
    // A page of charts is no use on a terminal; a file made by `>` would be made with the umask, not 0600.
    if (out === undefined) {
      throw new UsageError("report writes an HTML file: say where, with --out FILE.html (then open it in a browser).");
    }
    return { days: daysOption(days), target: privateFileTarget(out) };
  },
  run: async ({ input: { target, days }, options, opened, env }) => {
    const { store, name } = opened;
    const now = new Date();
    const rows = await store.listRows();
    const to = now.toISOString().slice(0, 10);
    const mail = await readMailFigures({ store, pace: paceOf(opened, env), rows, to, now, reported: reportedOf(env) });
    const figures = reportFigures(rows, await store.departureCounts(), { days, mail, now });
    writePrivateFile(target, reportHtml(figures, await reportCharts(figures), { from: name }));
    const signups = figures.days.reduce((sum, day) => sum + day.signups, 0);
    return `Wrote ${options.out}: ${figures.funnel.confirmed + figures.funnel.unconfirmed} on the list, ${signups} signups in the ${figures.days.length} days to ${figures.days.at(-1)!.date} (${figures.timeZone}). Open it in a browser.`;
  },
});
