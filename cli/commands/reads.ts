import { waitlistConfig } from "../../config/env";
import { maskEmail } from "../../waitlist/email-address";
import { redactAddresses } from "../../waitlist/mail/redact";
import { renderStats, waitlistStats, type WaitlistStats } from "../../waitlist/reports/stats";
import { eventsReported, readMailFigures } from "../../waitlist/reports/mail-figures";
import { neverAsked } from "../../waitlist/signup-life/rules";
import { command } from "../command";
import { UsageError } from "../errors";
import { paceOf } from "../open-store";

/** Whether the site's provider reports bounces and complaints to it: an event route set (issue 67, L11). */
export const reportedOf = (env: Parameters<typeof waitlistConfig>[0]) => eventsReported(waitlistConfig(env).mailEvents);

/*
 * The founders' reads of the whole list: stats and count (export is export.ts's). Each reads every signup once
 * (about one blob per thousand on Netlify Blobs).
 */

/** `--days N` of stats and report: a whole number of days from 1 to 366; undefined when not given. */
export function daysOption(days: string | undefined): number | undefined {
  if (days === undefined) return undefined;
  const count = Number(days);
  if (!Number.isInteger(count) || count < 1 || count > 366) {
    throw new UsageError(`--days must be a whole number from 1 to 366 (got "${days}").`);
  }
  return count;
}

export const stats = command({
  name: "stats",
  usage: [
    "stats [--days N] [--json]",
    "the total, the last day and week, signups per day (30 days), top",
    "sources and campaigns, confirmations and departures, and the mail's",
    "bounces and complaints over 7 days, warned of near a provider's limits",
  ],
  check: ({ days }) => daysOption(days) ?? 30,
  run: async ({ input: days, options, opened, env }) => {
    const { store, name } = opened;
    const lastError = await store.lastConfirmationError();
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const rows = await store.listRows();
    const figures: WaitlistStats = waitlistStats(rows, {
      days,
      confirmations: {
        ...(await store.confirmationCounts()),
        // Kept shortened since issue 52; an error kept before then may still quote an address.
        lastError: lastError === undefined ? null : redactAddresses(lastError),
      },
      ...(await store.departureCounts()),
      // A few rows, a day each: the rates a provider judges the account by; and the mail owed at the provider's pace.
      mail: await readMailFigures({
        store,
        pace: paceOf(opened, env),
        rows,
        to: today,
        now,
        reported: reportedOf(env),
      }),
    });
    return options.json ? JSON.stringify(figures, null, 2) : renderStats(figures, { from: name });
  },
});

export const count = command({
  name: "count",
  usage: ["count", "how many addresses are on the waitlist, confirmed or not, and their e-mails"],
  run: async ({ opened: { store } }) => {
    const rows = await store.all();
    const confirmed = rows.filter((row) => row.confirmedAt !== null).length;
    const unasked = rows.filter(neverAsked).length;
    const { sent, pending, failed } = await store.confirmationCounts();
    const lines = [
      `${rows.length} ${rows.length === 1 ? "address" : "addresses"} on the waitlist: ${confirmed} confirmed, ${rows.length - confirmed} not (yet).`,
      `Confirmation e-mails: ${sent} sent, ${pending} pending, ${failed} refused by the mail server.`,
    ];
    if (unasked > 0) {
      lines.push(
        `${unasked} signed up before the confirm step and were never asked to confirm: npm run waitlist -- ask-to-confirm`,
      );
    }
    // A failed mail's address is only shown shortened (the Privacy Policy), and so is any in the server's reply.
    for (const { email, failedAt, error } of await store.failedConfirmations()) {
      lines.push(`  refused: ${maskEmail(email)} (${failedAt}): ${redactAddresses(error, email)}`);
    }
    return lines.join("\n");
  },
});
