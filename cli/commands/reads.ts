import { stringify } from "csv-stringify/sync";
import { waitlistConfig } from "../../config/env";
import { maskEmail } from "../../config/email-address";
import { redactAddresses } from "../../waitlist/mail/redact";
import { confirmedInvites, renderStats, waitlistStats, type WaitlistStats } from "../../waitlist/stats";
import type { Signup } from "../../waitlist/stores/store";
import { leaveUrl } from "../../waitlist/tokens";
import { command } from "../command";
import { UsageError } from "../errors";
import { linkSecretOf } from "../open-store";
import { writePrivateFile } from "../../waitlist/private-file";
import { privateFileTarget } from "../out-file";

/*
 * The founders' reads of the whole list: stats, count and export. Each
 * reads every signup once (about one blob per thousand on Netlify Blobs).
 */

const columns = [
  "email",
  "createdAt",
  "source",
  "confirmationSentAt",
  "confirmationFailedAt",
  "confirmationError",
  "utmSource",
  "utmMedium",
  "utmCampaign",
  "utmContent",
  "utmTerm",
  "ref",
  "landingPath",
  // The record of consent (double opt-in), after the columns founders' sheets already read.
  "confirmedAt",
  "privacyPolicyAtSignup",
  "privacyPolicyAtConfirm",
  "optInSince",
  "consentAtSignup",
  "consentAtConfirm",
  // Invites (waitlist/invites.ts): its own code, the code it came by, and how many it brought who confirmed.
  "inviteCode",
  "invitedBy",
  "confirmedInvites",
  // What else is kept of the person (an access request's answer, issue 52): how often they signed up again, the
  // attempts at their confirmation e-mail, their mailbox's keyed fingerprint, the announcements they were sent.
  "repeatSignups",
  "confirmationAttempts",
  "mailbox",
  "announcements",
] as const;
const csvColumn = (column: string) => column.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const formats = ["csv", "json"] as const;

type ExportRow = Signup & { confirmedInvites: number; leaveUrl?: string };

function exportSignups(
  signups: readonly ExportRow[],
  format: (typeof formats)[number],
  withLeaveUrls: boolean,
): string {
  const chosen = withLeaveUrls ? [...columns, "leaveUrl" as const] : columns;
  if (format === "csv") {
    // Addresses come from visitors, and `=2*5@example.com` is a valid one: a
    // spreadsheet must see text, never a formula (csv-stringify's escape_formulas).
    // Excel reads a CSV file as the machine's legacy code page unless it starts
    // with UTF-8's byte-order mark; mailing tools and csv-parse (bom) skip it.
    return stringify(
      signups.map((signup) => chosen.map((column) => [signup[column] ?? null].flat().join(" ") || null)),
      { header: true, columns: chosen.map(csvColumn), escape_formulas: true, bom: true },
    );
  }
  return `${JSON.stringify(
    signups.map((signup) => Object.fromEntries(chosen.map((column) => [column, signup[column] ?? null]))),
    null,
    2,
  )}\n`;
}

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
    "sources and campaigns, confirmations and departures",
  ],
  check: ({ days }) => daysOption(days) ?? 30,
  run: async ({ input: days, options, opened: { store, name } }) => {
    const lastError = await store.lastConfirmationError();
    const figures: WaitlistStats = waitlistStats(await store.statsRows(), {
      days,
      confirmations: {
        ...(await store.confirmationCounts()),
        // Kept shortened since issue 52; an error kept before then may still quote an address.
        lastError: lastError === undefined ? null : redactAddresses(lastError),
      },
      ...(await store.departureCounts()),
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
    const neverAsked = rows.filter((row) => row.confirmedAt === null && row.optInSince === null).length;
    const { sent, pending, failed } = await store.confirmationCounts();
    const lines = [
      `${rows.length} ${rows.length === 1 ? "address" : "addresses"} on the waitlist: ${confirmed} confirmed, ${rows.length - confirmed} not (yet).`,
      `Confirmation e-mails: ${sent} sent, ${pending} pending, ${failed} refused by the mail server.`,
    ];
    if (neverAsked > 0) {
      lines.push(
        `${neverAsked} signed up before the confirm step and were never asked to confirm: npm run waitlist -- ask-to-confirm`,
      );
    }
    // A failed mail's address is only shown shortened (the Privacy Policy), and so is any in the server's reply.
    for (const { email, failedAt, error } of await store.failedConfirmations()) {
      lines.push(`  refused: ${maskEmail(email)} (${failedAt}): ${redactAddresses(error, email)}`);
    }
    return lines.join("\n");
  },
});

export const exportCommand = command({
  name: "export",
  usage: [
    "export --format csv|json [--out FILE] [--confirmed] [--leave-urls] [--order invites]",
    "every signup with where it came from, its consent and its invites, to",
    "standard output or FILE; --confirmed: those who confirmed, the list to mail",
    "at launch, each with their own one-click leave link (--leave-urls adds it",
    "to every signup); --order invites: those who brought the most first",
  ],
  check: ({ format, out, order }) => {
    if (!format) throw new UsageError("Say which format: --format csv or --format json.");
    const known = formats.find((name) => name === format);
    if (!known) throw new UsageError(`Unknown format "${format}": use --format csv or --format json.`);
    if (order !== undefined && order !== "invites") {
      throw new UsageError(`Unknown order "${order}": use --order invites, or leave it out for the order of signup.`);
    }
    return {
      format: known,
      target: out === undefined ? undefined : privateFileTarget(out),
      byInvites: order === "invites",
    };
  },
  run: async ({ input: { format, target, byInvites }, options, env, opened }) => {
    const all = await opened.store.all();
    const counts = confirmedInvites(all);
    const rows = all.map((row) => ({
      ...row,
      // The mail server's words without the address they may quote, as they are kept since issue 52.
      confirmationError: row.confirmationError && redactAddresses(row.confirmationError, row.email),
      confirmedInvites: (row.inviteCode && counts.get(row.inviteCode)) || 0,
    }));
    // A launch in waves: those who brought the most confirmed creators first, then by signup (a stable sort).
    if (byInvites) rows.sort((a, b) => b.confirmedInvites - a.confirmedInvites);
    const chosen = options.confirmed ? rows.filter((row) => row.confirmedAt !== null) : rows;
    // The launch list is mailed, and every mail must carry the person's own way off this list; the whole list is
    // read, not mailed, and keeps its links to those who ask (each is a key to take that person off).
    const withLeaveUrls = options.confirmed || options["leave-urls"];
    const secret = withLeaveUrls ? await linkSecretOf(opened, env) : undefined;
    const { siteUrl } = waitlistConfig(env);
    const output = exportSignups(
      secret === undefined
        ? chosen
        : chosen.map((row) => ({ ...row, leaveUrl: leaveUrl(row.email, row.createdAt, secret, siteUrl) })),
      format,
      secret !== undefined,
    );
    if (target) {
      writePrivateFile(target, output);
      return `Wrote ${options.out}.`;
    }
    return output.replace(/\n$/, "");
  },
});
