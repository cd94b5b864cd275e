import type { Env } from "../../config/env";
import { writePrivateFile } from "../../waitlist/private-file";
import { exportRows, type formats } from "../export-rows";
import { UsageError } from "../errors";
import type { Signup } from "../../waitlist/signup-life/types";

/*
 * What the launch mail tool receives (export --launch, let-in --launch-tool): for each confirmed signup, the address,
 * that person's own one-click leave link and the wave they were let in with, and nothing else. The Privacy Policy
 * says so (Sharing of Information), and test/content/policy-promises.test.ts holds its sentence to these columns.
 * Everything else a signup holds is the founders' own record (export --record), never a file to import.
 */

/** The launch list's columns, in this order. */
export const launchColumns = ["email", "leaveUrl", "wave"] as const;

export type LaunchRow = { email: string; leaveUrl: string; wave: number | null };

/**
 * Who is on the launch list: those let in for the tool to mail (let-in --launch-tool, a wave at a time), in the order
 * they signed up (the store's); with `wave`, only the people of that wave (`export --launch --wave N`). Nobody in no
 * wave (the Privacy Policy gives the tool those let in, each with their wave), and nobody let-in mailed itself: the
 * tool would mail them "You're in" a second time.
 */
export function launchList(
  signups: readonly Signup[],
  leaveUrlOf: (signup: Signup) => string,
  { wave }: { wave?: number } = {},
): LaunchRow[] {
  return signups
    .filter(
      (signup) =>
        signup.confirmedAt !== null &&
        signup.letInMail === "launch-tool" &&
        (wave === undefined || signup.wave === wave),
    )
    .map((signup) => ({ email: signup.email, leaveUrl: leaveUrlOf(signup), wave: signup.wave }));
}

/**
 * The launch tool the Privacy Policy names (<LaunchMailTool />, from LAUNCH_MAIL_TOOL): the list goes to no tool
 * before the policy names it, so a command that writes it refuses until it is set, before it writes anything.
 */
export function launchTool(env: Env): string {
  const tool = env.LAUNCH_MAIL_TOOL;
  if (tool === undefined) {
    throw new UsageError(
      "LAUNCH_MAIL_TOOL is not set: the Privacy Policy must name the launch mail tool before the list goes to it. Set it, as the site's build has it, to the tool's legal name and country (such as Intuit Inc. (Mailchimp, United States)), deploy the site with it, and run this again; nothing was written.",
    );
  }
  return tool;
}

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
