import { randomBytes } from "node:crypto";
import { ownPage } from "./attribution";
import { keyedDigest } from "./fingerprints";
import { mailboxOf } from "./mail/mailbox";

/*
 * Creators bringing creators, in a loop that cannot be gamed, with no form field, no cookie and no script. A signup
 * gets an invite code at its first confirmation: random, short, URL-safe, derived from nothing. Its invite link is
 * the site's root with ?invite=CODE. A signup made on a page with that query (the Referer of the form's post, as
 * attribution reads ?ref=) keeps the code as who invited it, when the code is a confirmed signup's. The inviter's
 * count, read by the code's key, is how many signed up through it and confirmed, one per mailbox (case, +tags and
 * Gmail dots are one person, mail/mailbox.ts), never the inviter's own mailbox, and none who left or were pruned.
 */

/** An invite code: 9 random bytes in base64url, 12 characters. */
export const newInviteCode = () => randomBytes(9).toString("base64url");

const codeShape = /^[A-Za-z0-9_-]{12}$/;

/** Whether `code` has an invite code's shape: anything else in ?invite= is ignored. */
export const isInviteCode = (code: unknown): code is string => typeof code === "string" && codeShape.test(code);

/** The invite link of a code: the site's root, with it. */
export const inviteUrl = (siteUrl: string, code: string) => `${siteUrl}/?invite=${code}`;

/**
 * The code a signup's page carried (?invite=CODE in the Referer of the form's post), when that page is one of this
 * site's (`ownOrigins`) and the code has its shape; undefined otherwise, and for two of them. Whether it is a
 * confirmed signup's code, the store decides.
 */
export function inviteFrom(referer: unknown, ownOrigins: readonly string[]): string | undefined {
  const codes = ownPage(referer, ownOrigins)?.searchParams.getAll("invite") ?? [];
  return codes.length === 1 && isInviteCode(codes[0]) ? codes[0] : undefined;
}

/** The keyed digest of an address's mailbox, kept with its signup: the same as the daily cap's counter. */
export const mailboxDigest = (secret: string, emailKey: string) => keyedDigest(secret, "mailbox", mailboxOf(emailKey));
