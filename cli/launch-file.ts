import pLimit from "p-limit";
import { writePrivateFile } from "../waitlist/private-file";
import type { FullStore } from "../waitlist/stores/store";
import type { Signup } from "../waitlist/signup-life/types";
import { suppressedUntil } from "../waitlist/suppressions";
import { launchColumns, launchTool, LaunchToolError, type LaunchRow } from "../waitlist/launch/launch-list";
import { exportRows, type formats } from "./export-rows";
import { UsageError } from "./errors";

/* The launch tool's file (export --launch, let-in --launch-tool), as a founder writes it. */

/** `--wave N`: a wave's number, a whole number from 1; undefined when not given. */
export function waveOption(wave: string | undefined): number | undefined {
  if (wave === undefined) return undefined;
  const number = Number(wave);
  if (!/^\d+$/.test(wave) || !Number.isSafeInteger(number) || number < 1) {
    throw new UsageError(`--wave must be a wave's number, a whole number from 1 (got "${wave}").`);
  }
  return number;
}

/** The first characters a spreadsheet reads as a formula (csv-stringify's escape_formulas, and OWASP's list). */
const formulaStart = /^[=+\-@\t\r]/;

/**
 * Writes the launch file for the tool: each address exactly as stored (a formula's escape would change an address
 * such as `-cleo@example.com`, and the tool would mail nobody), and this user's only. Resolves with what the founder
 * should know: addresses a spreadsheet would read as formulas, if any.
 */
export function writeLaunchFile(
  target: string,
  rows: readonly LaunchRow[],
  format: (typeof formats)[number],
): string[] {
  writePrivateFile(target, exportRows(rows, launchColumns, format, { escapeFormulas: false }));
  const formulas = rows.filter((row) => formulaStart.test(row.email)).length;
  if (format !== "csv" || formulas === 0) return [];
  return [
    `${formulas} ${formulas === 1 ? "address begins" : "addresses begin"} with =, +, - or @, as it was given: import the file into the tool as it is, and do not open it in a spreadsheet, which would read ${formulas === 1 ? "it" : "them"} as a formula.`,
  ];
}

/** The launch tool the Privacy Policy the site serves names (launch-list.ts), its refusal said as a usage error. */
export const namedLaunchTool = (siteUrl: string) =>
  launchTool(siteUrl).catch((error: unknown) => {
    throw error instanceof LaunchToolError ? new UsageError(error.message) : error;
  });

/** The keys of those on the launch list (of `wave`) whose address or mailbox is held: one lookup by key each. */
export async function suppressedOf(
  store: Pick<FullStore, "suppressedUntil" | "secret">,
  secret: string,
  everyone: readonly Signup[],
  wave: number | undefined,
): Promise<Set<string>> {
  const limit = pLimit(8);
  const now = new Date();
  const listed = everyone.filter((one) => one.letInMail === "launch-tool" && (wave === undefined || one.wave === wave));
  const held = await Promise.all(
    listed.map((one) =>
      limit(async () => ((await suppressedUntil(store, secret, one.emailKey, now)) ? one.emailKey : "")),
    ),
  );
  return new Set(held.filter((key) => key !== ""));
}
