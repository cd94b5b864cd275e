import { leaveUrl } from "../waitlist/tokens";
import { writePrivateFile } from "../waitlist/private-file";
import { exportRows, formats } from "./export-rows";
import type { Signup } from "../waitlist/signup-life/types";

/* The founders' copy of the record (export --record): its columns, its rows written, and its answers. */

export type ExportRow = Signup & { confirmedInvites: number; leaveUrl?: string };

export const columns = [
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
  "mailboxDigest",
  "announcements",
  // Waves (let-in): the wave it was let in with (null before), when, and its "You're in" e-mail.
  "wave",
  "letInAt",
  "letInMail",
  // The person's objections (object --to), each when noted, and a restriction (restrict), since when.
  "attributionObjectedAt",
  "inviteObjectedAt",
  "rankingObjectedAt",
  "recordsObjectedAt",
  "restrictedAt",
  // Where it stands (signup-life's SignupState: owed, sending, sent, refused, capped, confirmed).
  "state",
] as const;

/** The answer for an address with no entry: nothing written, and what is kept of it all the same, if anything. */
export const notListed = (email: string, held: readonly string[]) =>
  held.length === 0
    ? `${email} is not on the waitlist: nothing was written.`
    : [
        `${email} is not on the waitlist: nothing was written, as there is no row. Kept of it all the same:`,
        ...held.map((line) => `  ${line}`),
      ].join("\n");

/** Why `export --confirmed` is refused: it gave the launch tool every column of every confirmed signup. */
export const confirmedIsGone =
  "export --confirmed is gone: the launch mail tool gets those let in, a wave at a time (let-in, then export --launch --wave N --format csv --out FILE: each address with its own leave link and wave, nothing else), and a copy of every signup's record, to answer a question or a request, is export --record.";

/**
 * The record's rows, with each one's leave link if asked for (`links`), to the screen or to `target`. A file is a
 * copy no leave, remove or 30-day pass reaches: the founder is told to keep it no longer than what it answers (the
 * Privacy Policy answers a request within a month), never as a second list beside the store.
 */
export async function writeRecord(
  rows: ExportRow[],
  { format, target, out, what }: { format: (typeof formats)[number]; target?: string; out?: string; what: string },
  links: () => Promise<{ secret: string; siteUrl: string } | undefined>,
): Promise<string> {
  const linked = await links();
  const output = exportRows(
    linked === undefined
      ? rows
      : rows.map((row) => ({ ...row, leaveUrl: leaveUrl(row.email, row.createdAt, linked.secret, linked.siteUrl) })),
    linked === undefined ? columns : [...columns, "leaveUrl"],
    format,
  );
  if (target === undefined) return output.replace(/\n$/, "");
  writePrivateFile(target, output);
  return `Wrote ${out}: ${what} as the store keeps ${rows.length === 1 ? "it" : "them"}, a copy for the question or request it answers. Delete it once that is answered, within a month at most: the store is the record, and no leave, remove or 30-day pass reaches this copy.`;
}
