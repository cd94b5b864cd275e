import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { ConfigError, readEnv, serverConfig, type Env, type EnvSource } from "../config/env";
import { createConfirmations } from "../waitlist/mail/confirmations";
import { checkEmail } from "../waitlist/email-address";
import { createMailer, mailConfig } from "../waitlist/mail/mailer";
import { NetlifySetupError, openNetlifyAccess, type NetlifyAccess } from "./netlify-access";
import { formsSignups } from "./netlify-forms";
import { parseAge, pruneUnconfirmed } from "../waitlist/prune";
import { renderStats, waitlistStats, type WaitlistStats } from "../waitlist/stats";
import { openPostgresStore } from "../waitlist/stores/postgres-store";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import { StoreError, type FullStore, type Signup } from "../waitlist/stores/store";
import { leaveUrl } from "../waitlist/tokens";
import { forgettingMail, signingSecret } from "../waitlist/create-waitlist";

const usage = `Usage: npm run waitlist -- <command> [--netlify]

Commands:
  stats [--days N] [--json]         the total, the last day and week, signups per day (30 days), top
                                    sources and campaigns, confirmations and departures
  count                             how many addresses are on the waitlist, confirmed or not, and their e-mails
  export --format csv|json [--out FILE] [--confirmed] [--leave-urls]
                                    every signup (with --confirmed: those who confirmed, the list to mail at
                                    launch) with where it came from and its consent, to standard output or FILE;
                                    --leave-urls adds each signup's one-click leave link, for a mailing tool
  remove-unsubscribed --from FILE   take off the list every address of a mailing tool's CSV export of its
                                    unsubscribes, bounces or complaints (a column named Email or Email Address)
  resend-pending                    send the confirmation e-mails still owed now
  remove <address>                  take an address off the list (a request by e-mail), as its leave link does
  prune --unconfirmed-older-than 30d [--dry-run]
                                    remove every signup asked to confirm that long ago that never did
                                    (npm start does it every hour, Netlify's sweep every five minutes, at
                                    30 days); --dry-run lists them
  ask-to-confirm                    send the signups from before the confirm step an e-mail to confirm
  import-forms                      copy the signups Netlify Forms holds (this site before it kept its
                                    waitlist in Netlify Blobs) into the Netlify store; needs --netlify
  copy-to-database                  copy the signups the site's Netlify Blobs store holds (before it had
                                    Netlify Database) into the database DATABASE_URL names; needs --netlify

The store is data/waitlist.db, or the file WAITLIST_DB names, or the Postgres
database DATABASE_URL names (a Netlify site's Netlify Database: its connection
string). With --netlify, it is a Netlify site's Netlify Blobs store (a site
without Netlify Database), reached through Netlify's API
with NETLIFY_API_TOKEN and NETLIFY_SITE_ID: 500 calls a minute per token, and
a whole-list command reads about one blob per thousand signups. Mail goes
through SMTP_URL, or to data/outbox/ as .eml files when it is not set. Days
are local to TZ.`;

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
  // The record of consent (double opt-in), after the columns founders' sheets already read.
  "confirmedAt",
  "privacyPolicyAtSignup",
  "privacyPolicyAtConfirm",
  "optInSince",
  "consentAtSignup",
  "consentAtConfirm",
] as const;
const csvColumn = (column: string) => column.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The addresses of a mailing tool's export of its unsubscribes, bounces or
 * complaints: Mailchimp, Brevo, Buttondown and the like name the column
 * "Email Address", "Email" or "email". Each is checked as the form checks it.
 */
function readUnsubscribed(file: string | undefined): {
  addresses: { key: string }[];
  invalid: { line: number; value: string; reason: string }[];
} {
  if (!file) throw new UsageError("Say which file: remove-unsubscribed --from FILE.csv");
  let records: string[][];
  try {
    records = parse(readFileSync(file, "utf8"), {
      skip_empty_lines: true,
      bom: true,
      trim: true,
      relax_column_count: true,
    });
  } catch (error) {
    throw new UsageError(`${file} could not be read as CSV: ${(error as Error).message}`);
  }
  const column = (records[0] ?? []).findIndex((name) => /^e-?mail(?:[ _]address)?$/i.test(name));
  if (column < 0) throw new UsageError(`${file} has no column named Email or Email Address in its first line.`);
  const addresses: { key: string }[] = [];
  const invalid: { line: number; value: string; reason: string }[] = [];
  records.slice(1).forEach((record, index) => {
    const value = record[column] ?? "";
    const checked = checkEmail(value);
    if (checked.ok) addresses.push({ key: checked.key });
    else invalid.push({ line: index + 2, value, reason: checked.reason });
  });
  return { addresses, invalid };
}

/** The secret the site's links are made with, as resend-pending finds it; on Netlify, the site's own. */
async function exportSecret({ store, netlify }: OpenedStore, env: Env): Promise<string> {
  const configured = serverConfig(env).leaveSecret;
  const problem = await netlify?.store.signerProblem(configured);
  if (problem) throw new NetlifySetupError(problem);
  return signingSecret(store, configured);
}

type ExportRow = Signup & { leaveUrl?: string };

function exportSignups(signups: readonly ExportRow[], format: string, withLeaveUrls = false): string {
  const chosen = withLeaveUrls ? [...columns, "leaveUrl" as const] : columns;
  if (format === "csv") {
    // Addresses come from visitors, and `=2*5@example.com` is a valid one: a
    // spreadsheet must see text, never a formula (csv-stringify's escape_formulas).
    return stringify(
      signups.map((signup) => chosen.map((column) => signup[column] ?? null)),
      { header: true, columns: chosen.map(csvColumn), escape_formulas: true },
    );
  }
  if (format === "json") {
    return `${JSON.stringify(
      signups.map((signup) => Object.fromEntries(chosen.map((column) => [column, signup[column] ?? null]))),
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
      confirmed: { type: "boolean" },
      "leave-urls": { type: "boolean" },
      from: { type: "string" },
      "unconfirmed-older-than": { type: "string" },
      "dry-run": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...extra] = positionals;
  if (values.help || !command) return usage;
  if (!commands.includes(command as Command)) throw new UsageError(`Unknown command "${command}".\n\n${usage}`);
  if (command === "remove" && extra.length !== 1) {
    throw new UsageError(`Say which address to remove: npm run waitlist -- remove <address>`);
  }
  if (command !== "remove" && extra.length > 0) throw new UsageError(`Unexpected "${extra.join(" ")}".\n\n${usage}`);
  if (command === "export" && !values.format) throw new UsageError("Say which format: --format csv or --format json.");
  if (command === "export" && !["csv", "json"].includes(values.format!)) {
    throw new UsageError(`Unknown format "${values.format}": use --format csv or --format json.`);
  }
  const unsubscribed = command === "remove-unsubscribed" ? readUnsubscribed(values.from) : undefined;
  const days = values.days === undefined ? 30 : Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 366) {
    throw new UsageError(`--days must be a whole number from 1 to 366 (got "${values.days}").`);
  }
  const pruneAge = parseAge(values["unconfirmed-older-than"]);
  if (command === "prune" && pruneAge === undefined) {
    throw new UsageError(
      `Say how old an unconfirmed signup must be to go, in days or hours: --unconfirmed-older-than 30d${values["unconfirmed-older-than"] === undefined ? "" : ` (got "${values["unconfirmed-older-than"]}")`}.`,
    );
  }
  if (command === "import-forms" && !values.netlify) {
    throw new UsageError("import-forms copies into the Netlify store: run it with --netlify.");
  }
  if (command === "copy-to-database" && !(values.netlify && serverConfig(readEnv(source)).databaseUrl)) {
    throw new UsageError(
      "copy-to-database copies the Netlify Blobs store into Netlify Database: run it with --netlify, and DATABASE_URL set to the database's connection string (the site's Database page, Connect).",
    );
  }
  const checked = command === "remove" ? checkEmail(extra[0]) : undefined;
  if (checked && !checked.ok) throw new UsageError(`"${extra[0]}" is not a valid address: ${checked.reason}`);

  const env = readEnv(source);
  const opened = await openStore(env, Boolean(values.netlify));
  const { store } = opened;
  try {
    if (command === "remove") {
      const { key, email } = checked as { key: string; email: string };
      const removed = await store.remove(key, "operator", new Date());
      return removed
        ? `Removed ${removed.email} (on the list since ${removed.createdAt}); any confirmation still owed to it is cancelled.`
        : `${email} is not on the waitlist; nothing removed.`;
    }
    if (command === "count") {
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
      for (const refused of await store.failedConfirmations()) {
        lines.push(`  refused: ${refused.email} (${refused.failedAt}): ${refused.error}`);
      }
      return lines.join("\n");
    }
    if (command === "stats") {
      const stats: WaitlistStats = waitlistStats(await store.statsRows(), {
        days,
        confirmations: {
          ...(await store.confirmationCounts()),
          lastError: (await store.lastConfirmationError()) ?? null,
        },
        ...(await store.departureCounts()),
      });
      return values.json ? JSON.stringify(stats, null, 2) : renderStats(stats, { from: opened.name });
    }
    if (command === "remove-unsubscribed") {
      let removed = 0;
      for (const { key } of unsubscribed!.addresses) if (await store.remove(key, "operator", new Date())) removed++;
      const total = unsubscribed!.addresses.length;
      const absent = total - removed;
      const lines = [
        `Removed ${removed} of the ${total} addresses in ${values.from}; ${absent} ${absent === 1 ? "was" : "were"} not on the list.`,
      ];
      for (const { line, value, reason } of unsubscribed!.invalid)
        lines.push(`  line ${line}: ${JSON.stringify(value)} skipped: ${reason}`);
      return lines.join("\n");
    }
    if (command === "export") {
      const rows = await store.all();
      const chosen = values.confirmed ? rows.filter((row) => row.confirmedAt !== null) : rows;
      const secret = values["leave-urls"] ? await exportSecret(opened, env) : undefined;
      const output = exportSignups(
        secret === undefined
          ? chosen
          : chosen.map((row) => ({ ...row, leaveUrl: leaveUrl(row.email, row.createdAt, secret) })),
        values.format!,
        secret !== undefined,
      );
      if (values.out) {
        writeFileSync(values.out, output);
        return `Wrote ${values.out}.`;
      }
      return output.replace(/\n$/, "");
    }
    if (command === "import-forms") return await importForms(opened.netlify!, env);
    if (command === "copy-to-database") return await copyToDatabase(opened.netlify!, env);
    if (command === "prune") return await prune(store, pruneAge!, Boolean(values["dry-run"]));
    if (command === "ask-to-confirm") return await askToConfirm(store);
    return await resendPending(opened, env);
  } finally {
    await store.close();
  }
}

const commands = [
  "stats",
  "count",
  "export",
  "resend-pending",
  "remove",
  "prune",
  "ask-to-confirm",
  "import-forms",
  "remove-unsubscribed",
  "copy-to-database",
] as const;
type Command = (typeof commands)[number];

interface OpenedStore {
  store: FullStore;
  /** Where the list is, for the reader: a file, or a Netlify site. */
  name: string;
  netlify?: NetlifyAccess;
}

async function openStore(env: Env, netlify: boolean): Promise<OpenedStore> {
  if (netlify) {
    const access = await openNetlifyAccess(env);
    return { store: access.store, name: `Netlify site ${access.siteName}`, netlify: access };
  }
  const { dbFile, databaseUrl } = serverConfig(env);
  if (databaseUrl) {
    const store = forgettingMail(
      await openPostgresStore(databaseUrl, { warn: (message) => console.error(message) }),
      createMailer(mailConfig(env)),
    );
    const { host, pathname } = new URL(databaseUrl);
    return { store, name: `the Postgres database ${pathname.slice(1)} on ${host}` };
  }
  const relative = path.relative(process.cwd(), dbFile);
  // What is removed here goes from the outbox too, as on the running site.
  const store = forgettingMail(SqliteStore.openExisting(dbFile), createMailer(mailConfig(env)));
  return { store, name: relative.startsWith("..") ? dbFile : relative };
}

/** Unconfirmed signups asked that long ago: removed (counted as pruned), or with --dry-run only listed. */
async function prune(store: FullStore, olderThanMs: number, dryRun: boolean): Promise<string> {
  const { cutoff, addresses } = await pruneUnconfirmed(store, { olderThanMs, dryRun });
  const list = addresses.map(({ email, optInSince }) => `  ${email} (asked ${optInSince})`);
  if (addresses.length === 0) return `No unconfirmed signup was asked to confirm before ${cutoff}: nothing to remove.`;
  if (dryRun) {
    return [
      `Would remove ${addresses.length} unconfirmed signup${addresses.length === 1 ? "" : "s"} asked to confirm before ${cutoff}:`,
      ...list,
    ].join("\n");
  }
  return `Removed ${addresses.length} unconfirmed signup${addresses.length === 1 ? "" : "s"} asked to confirm before ${cutoff}.`;
}

/**
 * Asks every signup from before the confirm step that never confirmed: each
 * is owed a confirmation e-mail with the confirm link, sent by the running
 * site (or resend-pending), and pruned if it does not confirm in time.
 */
async function askToConfirm(store: FullStore): Promise<string> {
  const now = new Date();
  let asked = 0;
  for (const row of await store.all()) {
    if (row.confirmedAt === null && row.optInSince === null && (await store.askToConfirm(row.emailKey, now))) asked++;
  }
  return `Asked ${asked} signup${asked === 1 ? "" : "s"} from before the confirm step to confirm: each is owed an e-mail with the link, sent by the running site's next sweep or by resend-pending.`;
}

/** One attempt at every owed confirmation, through this machine's SMTP_URL (or outbox), signed as the site signs them. */
async function resendPending({ store, netlify }: OpenedStore, env: Env): Promise<string> {
  const { leaveSecret: configured, mailboxDailyMails } = serverConfig(env);
  const problem = await netlify?.store.signerProblem(configured);
  if (problem) throw new NetlifySetupError(problem);
  const mailer = createMailer(mailConfig(env));
  try {
    const { sent, held, pending, refused } = await createConfirmations({
      store,
      mailer,
      leaveSecret: await signingSecret(store, configured),
      // The site's cap, not the default: the founder's shell and the site read the same setting.
      mailboxDailyMails,
      log: () => {},
    }).resendPending();
    // On Netlify the ledger the founders' commands read is the sweep's to keep: bring it up to date now.
    await netlify?.store.fold();
    const lines = [
      `Sent ${sent} confirmation${sent === 1 ? "" : "s"} (via ${mailer.destination}); ${pending.length} still pending.`,
    ];
    if (held > 0) lines.push(`${held} being sent by the running site right now.`);
    // Refused for good: marked failed, never retried, listed for the operator; not a reason to stay red.
    for (const { email, reason } of refused) lines.push(`Refused for good, not retried: ${email}: ${reason}`);
    if (pending.length > 0) throw new PendingError(`${lines.join("\n")}\nThe mail server said: ${pending[0]!.reason}`);
    return lines.join("\n");
  } finally {
    mailer.close();
  }
}

/**
 * Every address of the old Netlify Forms waitlist that the store does not
 * have yet, with its first submission's time and attribution. They were
 * confirmed by that version's mail (or never, without SMTP_URL): they are
 * stored as sent, so nobody is mailed twice. Run it again at will.
 */
async function importForms({ api, siteId, store }: NetlifyAccess, env: Env): Promise<string> {
  const signups = await formsSignups(api, siteId, env.SITE_URL);
  if (!signups) return `The site has no "waitlist" form in Netlify Forms: nothing to import.`;
  let added = 0;
  for (const signup of signups) {
    const at = new Date(signup.createdAt);
    const earlier = { ...signup, source: "netlify" as const, at, confirmationSentAt: at, earlier: true };
    if ((await store.add(earlier)).added) added++;
  }
  await store.fold();
  return `Imported ${added} of ${signups.length} addresses from Netlify Forms; ${signups.length - added} were in the store already.`;
}

/**
 * Every signup of the site's Blobs store that Netlify Database does not have
 * yet, as it is: times, attribution, mail state and consent. An address the
 * database has already (a signup since the move) keeps its row. Run it again
 * at will.
 */
async function copyToDatabase({ store }: NetlifyAccess, env: Env): Promise<string> {
  const databaseUrl = serverConfig(env).databaseUrl!;
  // The ledger is what all() reads: bring it up to date first.
  await store.fold();
  const rows = await store.all();
  const database = await openPostgresStore(databaseUrl, { warn: (message) => console.error(message) });
  try {
    const added = await database.copyIn(rows);
    const { host, pathname } = new URL(databaseUrl);
    return `Copied ${added} of ${rows.length} signups into the Postgres database ${pathname.slice(1)} on ${host}; ${rows.length - added} were there already.`;
  } finally {
    await database.close();
  }
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
        // @netlify/api's error for an answer that is not 2xx, past the check openNetlifyAccess makes.
        console.error(`Netlify's API answered ${status} (${(error as Error).message}); try again in a minute.`);
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
