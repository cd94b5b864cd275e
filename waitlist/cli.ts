import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "csv-stringify/sync";
import { ConfigError, readEnv, serverConfig, type EnvSource } from "../config/env";
import { createConfirmations } from "./confirmations";
import { checkEmail } from "./email-address";
import { createMailer, mailConfig } from "./mailer";
import { NetlifySetupError, netlifyForms } from "../server/netlify-forms";
import { renderStats, waitlistStats, type WaitlistStats } from "./stats";
import { SqliteStore } from "./sqlite-store";
import { StoreError, type Signup } from "./store";
import { signingSecret } from "./waitlist";

const usage = `Usage: npm run waitlist -- <command>

Commands:
  stats [--days N] [--json] [--netlify]  the total, the last day and week, signups per day (30 days), top
                                         sources and campaigns, confirmations and departures
  count                                  how many addresses are on the waitlist, and their confirmations
  export --format csv|json [--out FILE] [--netlify]
                                         every signup with where it came from, to standard output or FILE
  resend-pending                         send the confirmation e-mails still owed now
  remove <address>                       take an address off the list (a request by e-mail), as its leave link does

The store is data/waitlist.db, or the file WAITLIST_DB names. Mail goes through
SMTP_URL, or to data/outbox/ as .eml files when it is not set. With --netlify,
the waitlist is read from Netlify Forms (NETLIFY_API_TOKEN, NETLIFY_SITE_ID).
Days are local to TZ.`;

class PendingError extends Error {}

export class UsageError extends Error {}

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
] as const;
const csvColumns = columns.map((column) => column.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));

/** One exported signup: from the store, or from Netlify Forms (no confirmation columns there). */
export type ExportRow = Omit<
  Signup,
  "emailKey" | "source" | "confirmationSentAt" | "confirmationFailedAt" | "confirmationError"
> &
  Partial<Pick<Signup, "confirmationSentAt" | "confirmationFailedAt" | "confirmationError">> & { source: string };

function exportSignups(signups: readonly ExportRow[], format: string): string {
  if (format === "csv") {
    // Addresses come from visitors, and `=2*5@example.com` is a valid one: a
    // spreadsheet must see text, never a formula (csv-stringify's escape_formulas).
    return stringify(
      signups.map((signup) => columns.map((column) => signup[column] ?? null)),
      { header: true, columns: csvColumns, escape_formulas: true },
    );
  }
  if (format === "json") {
    return `${JSON.stringify(
      signups.map((signup) => Object.fromEntries(columns.map((column) => [column, signup[column] ?? null]))),
      null,
      2,
    )}\n`;
  }
  throw new UsageError(`Unknown format "${format}": use --format csv or --format json.`);
}

/** Runs one command; returns what to print. */
export async function run(argv: string[], source?: EnvSource): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: "string" },
      out: { type: "string" },
      days: { type: "string" },
      json: { type: "boolean" },
      netlify: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...extra] = positionals;
  if (values.help || !command) return usage;
  const env = readEnv(source);
  const config = serverConfig(env);
  if (command === "remove") {
    if (extra.length !== 1) throw new UsageError(`Say which address to remove: npm run waitlist -- remove <address>`);
    const checked = checkEmail(extra[0]);
    if (!checked.ok) throw new UsageError(`"${extra[0]}" is not a valid address: ${checked.reason}`);
    const store = SqliteStore.openExisting(config.dbFile);
    try {
      const removed = await store.remove(checked.key, "operator", new Date());
      return removed
        ? `Removed ${removed.email} (on the list since ${removed.createdAt}); any confirmation still owed to it is cancelled.`
        : `${checked.email} is not on the waitlist; nothing removed.`;
    } finally {
      await store.close();
    }
  }
  if (extra.length > 0) throw new UsageError(`Unexpected "${extra.join(" ")}".\n\n${usage}`);
  if (command === "count") {
    const store = SqliteStore.openExisting(config.dbFile);
    try {
      const count = await store.count();
      const { sent, pending, failed } = await store.confirmationCounts();
      const lines = [
        `${count} ${count === 1 ? "address" : "addresses"} on the waitlist.`,
        `Confirmations: ${sent} sent, ${pending} pending, ${failed} refused by the mail server.`,
      ];
      for (const refused of await store.failedConfirmations()) {
        lines.push(`  refused: ${refused.email} (${refused.failedAt}): ${refused.error}`);
      }
      return lines.join("\n");
    } finally {
      await store.close();
    }
  }
  if (command === "stats") {
    const days = values.days === undefined ? 30 : Number(values.days);
    if (!Number.isInteger(days) || days < 1 || days > 366) {
      throw new UsageError(`--days must be a whole number from 1 to 366 (got "${values.days}").`);
    }
    let stats: WaitlistStats;
    let from: string;
    if (values.netlify) {
      const forms = netlifyForms(env);
      stats = waitlistStats(await forms.waitlistRows(), { days });
      from = `Netlify Forms, site ${forms.siteId}`;
    } else {
      const store = SqliteStore.openExisting(config.dbFile);
      try {
        stats = waitlistStats(await store.statsRows(), {
          days,
          confirmations: {
            ...(await store.confirmationCounts()),
            lastError: (await store.lastConfirmationError()) ?? null,
          },
          left: await store.departures(),
        });
      } finally {
        await store.close();
      }
      const relative = path.relative(process.cwd(), config.dbFile);
      from = relative.startsWith("..") ? config.dbFile : relative;
    }
    return values.json ? JSON.stringify(stats, null, 2) : renderStats(stats, { from });
  }
  if (command === "export") {
    if (!values.format) throw new UsageError("Say which format: --format csv or --format json.");
    let rows: readonly ExportRow[];
    if (values.netlify) {
      rows = await netlifyForms(env).waitlistRows();
    } else {
      const store = SqliteStore.openExisting(config.dbFile);
      try {
        rows = await store.all();
      } finally {
        await store.close();
      }
    }
    const output = exportSignups(rows, values.format);
    if (values.out) {
      writeFileSync(values.out, output);
      return `Wrote ${values.out}.`;
    }
    return output.replace(/\n$/, "");
  }
  if (command === "resend-pending") {
    const store = SqliteStore.openExisting(config.dbFile);
    const mailer = createMailer(mailConfig(env));
    try {
      const { sent, held, pending, refused } = await createConfirmations({
        store,
        mailer,
        leaveSecret: await signingSecret(store, config.leaveSecret),
        log: () => {},
      }).resendPending();
      const lines = [
        `Sent ${sent} confirmation${sent === 1 ? "" : "s"} (via ${mailer.destination}); ${pending.length} still pending.`,
      ];
      if (held > 0) lines.push(`${held} being sent by the running server right now.`);
      // Refused for good: marked failed, never retried, listed for the operator; not a reason to stay red.
      for (const { email, reason } of refused) lines.push(`Refused for good, not retried: ${email}: ${reason}`);
      if (pending.length > 0)
        throw new PendingError(`${lines.join("\n")}\nThe mail server said: ${pending[0]!.reason}`);
      return lines.join("\n");
    } finally {
      mailer.close();
      await store.close();
    }
  }
  throw new UsageError(`Unknown command "${command}".\n\n${usage}`);
}

if (require.main === module) {
  run(process.argv.slice(2)).then(
    (output) => console.log(output),
    (error: unknown) => {
      if (error instanceof PendingError) {
        console.error(error.message);
        process.exit(1);
      }
      if (
        error instanceof UsageError ||
        error instanceof StoreError ||
        error instanceof ConfigError ||
        error instanceof NetlifySetupError
      ) {
        console.error(error.message);
        process.exit(2);
      }
      const status = (error as { status?: unknown }).status;
      if (typeof status === "number") {
        // @netlify/api's error for an answer that is not 2xx: the one a founder meets is 401, a wrong token.
        console.error(
          `Netlify's API answered ${status} (${(error as Error).message}); check NETLIFY_API_TOKEN and NETLIFY_SITE_ID.`,
        );
        process.exit(1);
      }
      if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
        console.error(`${(error as Error).message}\n\n${usage}`);
        process.exit(2);
      }
      throw error;
    },
  );
}
