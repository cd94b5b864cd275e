import { isUtf8 } from "node:buffer";
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { checkListedEmail } from "../waitlist/email-address";
import { UsageError } from "./errors";

/*
 * A file of addresses a founder hands a command: a mailing tool's export of its unsubscribes (remove-unsubscribed)
 * or of its members (leavers), or this project's own export. Read exactly, or refused with a reason: never a person
 * skipped in silence.
 */

/** A row of an unsubscribe file that names an address: what it may name, what it most likely names first. */
export interface NamedRow {
  line: number;
  value: string;
  readings: { email: string; key: string }[];
}

/** A row that names nobody this list could hold, and why. */
export interface UnreadRow {
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
export function readAddressFile(
  file: string | undefined,
  usage: string,
): { file: string; named: NamedRow[]; unread: UnreadRow[] } {
  if (!file) throw new UsageError(`Say which file: ${usage}`);
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
