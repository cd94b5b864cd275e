import { isUtf8 } from "node:buffer";
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { checkListedEmail } from "../../config/email-address";
import { parseAge, pruneUnconfirmed } from "../../waitlist/prune";
import { command } from "../command";
import { NotRemovedError, UsageError } from "../errors";

/*
 * Taking people off the list on their behalf: an e-mailed request, a mailing
 * tool's unsubscribes, and the retention's prune. Each removes as a leave
 * link does, outbox copies included (open-store.ts).
 */

/** A row of an unsubscribe file that names an address: what it may name, what it most likely names first. */
interface NamedRow {
  line: number;
  value: string;
  readings: { email: string; key: string }[];
}

/** A row that names nobody this list could hold, and why. */
interface UnreadRow {
  line: number;
  value: string;
  reason: string;
}

/** A cell the export escaped: csv-stringify's escape_formulas writes one apostrophe before these (reads.ts). */
const escapedFormula = /^'[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * What one cell may name. The export writes `=1+2@example.com` as
 * `'=1+2@example.com`, so a spreadsheet shows text; that cell names the
 * address after the apostrophe, when that is an address as it stands. An
 * apostrophe is a letter of an address too, so the cell as written is the
 * second reading.
 */
function readingsOf(value: string): NamedRow["readings"] | UnreadRow["reason"] {
  const written = checkListedEmail(value);
  const rest = value.slice(1);
  const unescaped = escapedFormula.test(value) && rest === rest.trim() ? checkListedEmail(rest) : undefined;
  if (!unescaped?.ok) return written.ok ? [written] : written.reason;
  return written.ok && written.key !== unescaped.key ? [unescaped, written] : [unescaped];
}

const saveAsUtf8 =
  'Save it as UTF-8 and run this again: in Excel, Save As "CSV UTF-8 (Comma delimited)"; in LibreOffice, Save As "Text CSV" with the character set "Unicode (UTF-8)". Nothing was removed.';

/**
 * A file's text: UTF-8 (a byte-order mark or none), or UTF-16 that starts
 * with its byte-order mark (Excel's "Unicode text"). Anything else is
 * refused, never guessed: read as UTF-8, a legacy code page's josé is no
 * address at all, or another one, and that person would stay listed.
 */
function readText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`${file} could not be read: ${(error as Error).message}`);
  }
  const utf16 =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? "utf-16le"
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? "utf-16be"
        : undefined;
  if (utf16) {
    try {
      return new TextDecoder(utf16, { fatal: true }).decode(bytes);
    } catch {
      throw new UsageError(`${file} starts as UTF-16 text but is not: it holds half a character. ${saveAsUtf8}`);
    }
  }
  // UTF-8 holds a NUL byte only for U+0000, which no CSV of addresses does; UTF-16 holds one in every ASCII letter.
  if (bytes.includes(0)) {
    throw new UsageError(
      `${file} holds NUL characters, as UTF-16 text without its byte-order mark does. ${saveAsUtf8}`,
    );
  }
  if (!isUtf8(bytes)) {
    // Line by line, to name the first wrong one: a line feed is never part of another character in UTF-8.
    let line = 1;
    for (let start = 0; ; line++) {
      const end = bytes.indexOf(0x0a, start);
      if (!isUtf8(bytes.subarray(start, end < 0 ? bytes.length : end)) || end < 0) break;
      start = end + 1;
    }
    throw new UsageError(
      `${file} is not UTF-8: line ${line} is not. It was likely saved in a legacy code page such as Windows-1252, whose accented letters would be read as other characters. ${saveAsUtf8}`,
    );
  }
  return new TextDecoder("utf-8").decode(bytes);
}

const emailColumn = /^e-?mail(?:[ _]address)?$/i;

/**
 * What separates a file's cells: a comma, a tab (Excel's "Unicode text") or a
 * semicolon (Excel's CSV where a comma writes decimals, as in Germany): the
 * first that makes a column of addresses in the first line.
 */
function delimiterOf(text: string): string {
  const header = (delimiter: string) => {
    try {
      return (parse(text, { delimiter, to_line: 1, bom: true, trim: true, relax_quotes: true }) as string[][])[0] ?? [];
    } catch {
      return [];
    }
  };
  return [",", "\t", ";"].find((delimiter) => header(delimiter).some((name) => emailColumn.test(name))) ?? ",";
}

/**
 * The addresses of a mailing tool's export of its unsubscribes, bounces or
 * complaints: Mailchimp, Brevo, Buttondown and the like name the column
 * "Email Address", "Email" or "email"; this project's own export, "email".
 * Its cells may be separated by commas, tabs or semicolons.
 * Each is read as a listed address (checkListedEmail): the list may hold
 * look-alikes from before the form refused them.
 */
function readUnsubscribed(file: string | undefined): { file: string; named: NamedRow[]; unread: UnreadRow[] } {
  if (!file) throw new UsageError("Say which file: remove-unsubscribed --from FILE.csv");
  const text = readText(file);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      delimiter: delimiterOf(text),
      // A blank line, or a row a spreadsheet left with every cell empty, names nobody.
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      bom: true,
      trim: true,
      relax_column_count: true,
      // Each record with the line it ends on, so that a row not removed is named by the line a founder sees.
      info: true,
    }) as unknown as typeof records;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file} could not be read as CSV: ${(error as Error).message}`);
  }
  const column = (records[0]?.record ?? []).findIndex((name) => emailColumn.test(name));
  if (column < 0) throw new UsageError(`${file} has no column named Email or Email Address in its first line.`);
  const named: NamedRow[] = [];
  const unread: UnreadRow[] = [];
  for (const { record, info } of records.slice(1)) {
    const value = record[column] ?? "";
    const readings = readingsOf(value);
    if (typeof readings === "string") unread.push({ line: info.lines, value, reason: readings });
    else named.push({ line: info.lines, value, readings });
  }
  return { file, named, unread };
}

export const remove = command({
  name: "remove",
  usage: ["remove <address>", "take an address off the list (a request by e-mail), as its leave link does"],
  takesAddress: true,
  check: (_options, _env, address) => {
    const checked = checkListedEmail(address);
    if (!checked.ok) throw new UsageError(`"${address}" is not a valid address: ${checked.reason}`);
    return checked;
  },
  run: async ({ input: { key, email }, opened: { store, forget } }) => {
    const removed = await store.remove(key, "operator", new Date());
    if (removed) forget(removed.email);
    return removed
      ? `Removed ${removed.email} (on the list since ${removed.createdAt}); any confirmation still owed to it is cancelled.`
      : `${email} is not on the waitlist; nothing removed.`;
  },
});

export const removeUnsubscribed = command({
  name: "remove-unsubscribed",
  usage: [
    "remove-unsubscribed --from FILE",
    "take off the list every address of a mailing tool's CSV export of its",
    "unsubscribes, bounces or complaints (a column named Email or Email Address)",
  ],
  check: ({ from }) => readUnsubscribed(from),
  run: async ({ input: { file, named, unread }, opened: { store, forget } }) => {
    let removed = 0;
    let absent = 0;
    const notRemoved = [...unread];
    for (const { line, value, readings } of named) {
      let meant = readings[0]!;
      if (readings.length > 1) {
        const listed = [];
        for (const reading of readings) if (await store.lookup(reading.key)) listed.push(reading);
        if (listed.length > 1) {
          const [a, b] = listed.map((reading) => reading.email);
          const reason = `it may name ${a} or ${b}, both listed (the export writes both so).`;
          notRemoved.push({ line, value, reason });
          continue;
        }
        meant = listed[0] ?? meant;
      }
      const gone = await store.remove(meant.key, "operator", new Date());
      if (gone) forget(gone.email);
      if (gone) removed++;
      else absent++;
    }
    const done = `Removed ${removed} of the ${named.length} addresses in ${file}; ${absent} ${absent === 1 ? "was" : "were"} not on the list.`;
    if (notRemoved.length === 0) return done;
    // Everyone the file names must go: a row left behind is someone mailed again, so the exit code says so.
    notRemoved.sort((a, b) => a.line - b.line);
    const rows = notRemoved.length === 1 ? "1 row was" : `${notRemoved.length} rows were`;
    throw new NotRemovedError(
      [
        done,
        `${rows} not removed: correct ${notRemoved.length === 1 ? "it" : "them"} and run this again, or remove each with npm run waitlist -- remove <address>.`,
        ...notRemoved.map(({ line, value, reason }) => `  line ${line}: ${JSON.stringify(value)}: ${reason}`),
      ].join("\n"),
    );
  },
});

export const prune = command({
  name: "prune",
  usage: [
    "prune --unconfirmed-older-than 30d [--dry-run]",
    "remove every signup asked to confirm that long ago that never did",
    "(npm start does it every hour, Netlify's sweep every five minutes, at",
    "30 days); --dry-run lists them",
  ],
  check: (options) => {
    const given = options["unconfirmed-older-than"];
    const olderThanMs = parseAge(given);
    if (olderThanMs === undefined) {
      throw new UsageError(
        `Say how old an unconfirmed signup must be to go, in days or hours: --unconfirmed-older-than 30d${given === undefined ? "" : ` (got "${given}")`}.`,
      );
    }
    return olderThanMs;
  },
  run: async ({ input: olderThanMs, options, opened: { store, forget } }) => {
    const dryRun = Boolean(options["dry-run"]);
    const { cutoff, addresses } = await pruneUnconfirmed(store, { olderThanMs, dryRun, forget });
    const list = addresses.map(({ email, optInSince }) => `  ${email} (asked ${optInSince})`);
    const signups = `unconfirmed signup${addresses.length === 1 ? "" : "s"}`;
    if (addresses.length === 0)
      return `No unconfirmed signup was asked to confirm before ${cutoff}: nothing to remove.`;
    if (dryRun) {
      return [`Would remove ${addresses.length} ${signups} asked to confirm before ${cutoff}:`, ...list].join("\n");
    }
    return `Removed ${addresses.length} ${signups} asked to confirm before ${cutoff}.`;
  },
});
