import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { siteSettings } from "../config/env";
import { checkEmail } from "./email-address";

/*
 * The personal "Leave the waitlist" link in every confirmation e-mail, for
 * every deployment (npm start, gatsby develop, Netlify's functions): the
 * token names the address and carries an HMAC-SHA256 of it under
 * WAITLIST_SECRET, so only we can make one and a changed character breaks it.
 */

/** Where the link points, on every deployment (netlify.toml sends it to a function there). */
export const leavePath = "/waitlist/leave";

/** A new random secret: 32 bytes, base64url. */
export function newLeaveSecret(): string {
  return randomBytes(32).toString("base64url");
}

const signature = (email: string, secret: string) =>
  createHmac("sha256", secret).update(`${leavePath} ${email}`, "utf8").digest("base64url");

/** The token of one address (as stored: trimmed, NFC): the address, a dot, its signature; URL-safe. */
export function leaveToken(email: string, secret: string): string {
  return `${Buffer.from(email, "utf8").toString("base64url")}.${signature(email, secret)}`;
}

/** The address's personal link, at the canonical site (SITE_URL). */
export function leaveUrl(email: string, secret: string): string {
  return `${siteSettings().siteUrl}${leavePath}?token=${leaveToken(email, secret)}`;
}

export interface LeavingAddress {
  /** As the token names it, for the page. */
  email: string;
  /** What it is listed under (email-address.ts). */
  key: string;
}

/** The longest token an address of the longest allowed length makes, with room to spare. */
const maxTokenLength = 1024;
const tokenShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

/**
 * The address a token names, when its signature is ours under `secret`;
 * undefined for anything else: empty, malformed, tampered with, signed under
 * another secret, or naming something that is not a valid address. The whole
 * token is compared with the one we would make, in constant time, so no
 * character (not even base64's unused low bits) can change unnoticed.
 */
export function verifyLeaveToken(token: unknown, secret: string): LeavingAddress | undefined {
  if (typeof token !== "string" || token.length > maxTokenLength || !tokenShape.test(token)) return undefined;
  let email: string;
  try {
    email = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(token.split(".")[0]!, "base64url"));
  } catch {
    return undefined;
  }
  const expected = Buffer.from(leaveToken(email, secret), "utf8");
  const given = Buffer.from(token, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const checked = checkEmail(email);
  if (!checked.ok || checked.email !== email) return undefined;
  return { email, key: checked.key };
}
