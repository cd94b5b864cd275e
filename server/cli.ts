import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { stringify } from "csv-stringify/sync";
import { ConfigError, readConfig } from "./config";
import { StoreError, WaitlistStore, type Signup } from "./store";

const usage = `Usage: npm run waitlist -- <command>

Commands:
  count                                  how many addresses are on the waitlist
  export --format csv|json [--out FILE]  every signup, to standard output or FILE

The store is data/waitlist.db, or the file WAITLIST_DB names.`;

export class UsageError extends Error {}

const columns = ["email", "createdAt", "source"] as const;

export function exportSignups(signups: Signup[], format: string): string {
  if (format === "csv") {
    return stringify(
      signups.map((signup) => columns.map((column) => signup[column])),
      { header: true, columns: ["email", "created_at", "source"] },
    );
  }
  if (format === "json") {
    return `${JSON.stringify(
      signups.map((signup) => Object.fromEntries(columns.map((column) => [column, signup[column]]))),
      null,
      2,
    )}\n`;
  }
  throw new UsageError(`Unknown format "${format}": use --format csv or --format json.`);
}

/** Runs one command; returns what to print. */
export function run(argv: string[], env: NodeJS.ProcessEnv = process.env): string {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { format: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const [command, ...extra] = positionals;
  if (values.help || !command) return usage;
  if (extra.length > 0) throw new UsageError(`Unexpected "${extra.join(" ")}".\n\n${usage}`);
  const config = readConfig(env);
  if (command === "count") {
    const store = WaitlistStore.openExisting(config.dbFile);
    try {
      const count = store.count();
      return `${count} ${count === 1 ? "address" : "addresses"} on the waitlist.`;
    } finally {
      store.close();
    }
  }
  if (command === "export") {
    if (!values.format) throw new UsageError("Say which format: --format csv or --format json.");
    const store = WaitlistStore.openExisting(config.dbFile);
    let output: string;
    try {
      output = exportSignups(store.all(), values.format);
    } finally {
      store.close();
    }
    if (values.out) {
      writeFileSync(values.out, output);
      return `Wrote ${values.out}.`;
    }
    return output.replace(/\n$/, "");
  }
  throw new UsageError(`Unknown command "${command}".\n\n${usage}`);
}

if (require.main === module) {
  try {
    console.log(run(process.argv.slice(2)));
  } catch (error) {
    if (error instanceof UsageError || error instanceof StoreError || error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`${(error as Error).message}\n\n${usage}`);
      process.exit(2);
    }
    throw error;
  }
}
