import { parseArgs } from "node:util";
import { readEnv, type Env, type EnvSource } from "../config/env";
import type { Command } from "./command";
import { announcePolicyChange } from "./commands/announce";
import { leavers } from "./commands/leavers";
import { letIn } from "./commands/let-in";
import { object, objectToRanking, restrict } from "./commands/objections";
import { askToConfirm, resendPending } from "./commands/mail";
import { exportCommand } from "./commands/export";
import { count, stats } from "./commands/reads";
import { prune, remove, removeUnsubscribed } from "./commands/removals";
import { report } from "./commands/report";
import { UsageError } from "./errors";
import { openStore } from "./open-store";

export { UsageError } from "./errors";

/** Every command, in the order the usage lists them. */
const commands: readonly Command[] = [
  stats,
  report,
  count,
  exportCommand,
  removeUnsubscribed,
  leavers,
  resendPending,
  remove,
  prune,
  askToConfirm,
  announcePolicyChange,
  letIn,
  object,
  objectToRanking,
  restrict,
];

const column = 34;
const usageLines = commands.flatMap(({ usage: [synopsis, ...description] }) => {
  const indent = " ".repeat(column + 2);
  const rest = description.slice(1).map((line) => `${indent}${line}`);
  return synopsis.length < column - 1
    ? [`  ${synopsis.padEnd(column)}${description[0]}`, ...rest]
    : [`  ${synopsis}`, `${indent}${description[0]}`, ...rest];
});

export const usage = `Usage: npm run waitlist -- <command> [--netlify]

Commands:
${usageLines.join("\n")}

The store is data/waitlist.db, or the file WAITLIST_DB names, or the Postgres
database DATABASE_URL names. With --netlify, it is a Netlify site's Netlify
Blobs store, reached through Netlify's API with NETLIFY_API_TOKEN and
NETLIFY_SITE_ID: 500 calls a minute per token, and a whole-list command reads
about one blob per thousand signups. Mail goes through SMTP_URL: without it
resend-pending and announce-policy-change send nothing (a file on this machine
reaches nobody), and let-in refuses on Postgres and with --netlify; only on a
SQLite file does it write its e-mails to data/outbox/ (OUTBOX_DIR) as .eml
files, which reach nobody yet count as sent. Days are local to TZ.`;

/**
 * Runs one command line; returns what to print. The environment (`source`,
 * process.env by default) is read once, when a command needs it; the command's
 * arguments are checked before any store is opened.
 */
export async function run(argv: string[], source?: EnvSource): Promise<string> {
  const { positionals, values: options } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: "string" },
      out: { type: "string" },
      days: { type: "string" },
      json: { type: "boolean" },
      netlify: { type: "boolean" },
      confirmed: { type: "boolean" },
      record: { type: "boolean" },
      launch: { type: "boolean" },
      "leave-urls": { type: "boolean" },
      from: { type: "string" },
      as: { type: "string" },
      "unconfirmed-older-than": { type: "string" },
      "dry-run": { type: "boolean" },
      again: { type: "boolean" },
      policy: { type: "string" },
      date: { type: "string" },
      since: { type: "string" },
      order: { type: "string" },
      wave: { type: "string" },
      "not-let-in": { type: "boolean" },
      count: { type: "string" },
      "per-second": { type: "string" },
      "launch-tool": { type: "boolean" },
      to: { type: "string" },
      lift: { type: "boolean" },
      email: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [name, ...extra] = positionals;
  if (options.help || !name) return usage;
  const chosen = commands.find((row) => row.name === name);
  if (!chosen) throw new UsageError(`Unknown command "${name}".\n\n${usage}`);
  if (chosen.takesAddress && extra.length !== 1) {
    throw new UsageError(`Say which address to ${name}: npm run waitlist -- ${chosen.usage[0]}`);
  }
  if (!chosen.takesAddress && extra.length > 0) throw new UsageError(`Unexpected "${extra.join(" ")}".\n\n${usage}`);
  let env: Env | undefined;
  const readOnce = () => (env ??= readEnv(source));
  const input = chosen.check?.(options, readOnce, extra[0]);
  const opened = await openStore(readOnce(), Boolean(options.netlify));
  try {
    return await chosen.run({ input, options, env: readOnce(), opened });
  } finally {
    // The mail's leases of connections given back, so that the next command or the site need not wait them out.
    for (const pace of opened.paces ?? []) await pace.release().catch(() => {});
    await opened.store.close();
  }
}
