import path from "node:path";
import isEmail from "validator/lib/isEmail.js";
import { z } from "zod";
import { projectFolders } from "./folders";

/*
 * What every variable of variables.ts is made of: the row docs/configuration.md shows of it, and the kinds of value
 * its schemas take (a line of text, a whole number with its default, a URL, an operator's address, a list).
 */

export const minSecretLength = 32;

export interface Variable {
  schema: z.ZodType;
  /** What a good value looks like, after "NAME must be ". */
  expected: string;
  /** The default as docs/configuration.md shows it. */
  defaultText: string;
  /** What it is for, as docs/configuration.md shows it. */
  usedFor: string;
  /** Never echo the value back (passwords, tokens). */
  secret?: true;
  /** Said after the problem, when there is a usual fix. */
  hint?: string;
}

export const text = z.string().trim().min(1);
export const wholeNumber = (min: number, max: number, fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((value) => value ?? fallback);
/** Whether value is a URL with one of these protocols ("https:"). */
export function isUrl(value: string, protocols: RegExp): boolean {
  try {
    return protocols.test(new URL(value).protocol);
  } catch {
    return false;
  }
}
export const httpUrl = text.refine((value) => isUrl(value, /^https?:$/));
/** One line of text a page shows as it is: no control characters, nothing that reads as markup. */
export const oneLine = (max: number) =>
  text
    .max(max)
    .regex(/^[^<>{}\p{Cc}]+$/u)
    .optional();
/**
 * An operator's address (CONTACT_EMAIL, FOUNDERS_DIGEST_TO): one plain address, without a display name, a space or
 * an invisible character. A visitor's address is held to the waitlist's own rule and made canonical there, at the
 * edge (waitlist/email-address.ts): config/ imports nothing of ours.
 */
export const isAddress = (value: string) =>
  !/[\p{Cc}\p{Cf}\p{White_Space}]/u.test(value) &&
  isEmail(value, { allow_display_name: false, allow_ip_domain: false, require_tld: true });
/** A comma-separated list, each item trimmed and empty ones dropped; none when not set. */
export const commaList = (item: z.ZodString) =>
  item.optional().transform((value) =>
    (value ?? "")
      .split(",")
      .map((one) => one.trim())
      .filter(Boolean),
  );
export const projectPath = (fallback: string) =>
  text.optional().transform((value) => path.resolve(projectFolders.root, value ?? fallback));
