import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { siteSettings } from "../config/env";
import { checkEmail } from "./email-address";

/*
 * The two personal links in every confirmation e-mail, for every deployment
 * (npm start, gatsby develop, Netlify's functions): "Confirm my spot" and
 * "Leave the waitlist". A token names the address (and, to confirm, the
 * signup it confirms) and carries an HMAC-SHA256 of it under the secret and
 * the link's own path, so only we can make one, a changed character breaks
 * it, and a leave token can never confirm nor a confirm token remove.
 */

/** Where the links point, on every deployment (each is a function of its own on Netlify). */
export const leavePath = "/waitlist/leave";
export const confirmPath = "/waitlist/confirm";

/** A new random secret: 32 bytes, base64url. */
export function newLeaveSecret(): string {
  return randomBytes(32).toString("base64url");
}

const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const signature = (purpose: string, fields: readonly string[], secret: string) =>
  createHmac("sha256", secret)
    .update([purpose, ...fields].join(" "), "utf8")
    .digest("base64url");

/** The longest token an address of the longest allowed length makes, with room to spare. */
const maxTokenLength = 1200;
const leaveShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;
const confirmShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

/** The token of one address (as stored: trimmed, NFC): the address, a dot, its signature; URL-safe. */
export function leaveToken(email: string, secret: string): string {
  return `${encode(email)}.${signature(leavePath, [email], secret)}`;
}

/** The token that confirms one signup: the address, when it was stored, and their signature. */
export function confirmToken(email: string, createdAt: string, secret: string): string {
  return `${encode(email)}.${encode(createdAt)}.${signature(confirmPath, [email, createdAt], secret)}`;
}

/** The address's personal leave link, at the canonical site (SITE_URL). */
export function leaveUrl(email: string, secret: string): string {
  return `${siteSettings().siteUrl}${leavePath}?token=${leaveToken(email, secret)}`;
}

/** The signup's personal confirm link, at the canonical site (SITE_URL). */
export function confirmUrl(email: string, createdAt: string, secret: string): string {
  return `${siteSettings().siteUrl}${confirmPath}?token=${confirmToken(email, createdAt, secret)}`;
}

export interface LeavingAddress {
  /** As the token names it, for the page. */
  email: string;
  /** What it is listed under (email-address.ts). */
  key: string;
}

export interface ConfirmingSignup extends LeavingAddress {
  /** When the signup it confirms was stored (UTC, ISO 8601). */
  createdAt: string;
}

/** Decodes one token part as UTF-8; undefined when it is not. */
function decode(part: string): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(part, "base64url"));
  } catch {
    return undefined;
  }
}

/** Whether `token` is exactly `expected`, compared in constant time. */
function same(token: string, expected: string): boolean {
  const given = Buffer.from(token, "utf8");
  const wanted = Buffer.from(expected, "utf8");
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** The address a token names when it is valid and as stored (trimmed, NFC). */
function listedAs(email: string): LeavingAddress | undefined {
  const checked = checkEmail(email);
  if (!checked.ok || checked.email !== email) return undefined;
  return { email, key: checked.key };
}

/**
 * The address a leave token names, when its signature is ours under
 * `secret`; undefined for anything else: empty, malformed, tampered with,
 * signed under another secret, a confirm token, or naming something that is
 * not a valid address. The whole token is compared with the one we would
 * make, in constant time, so no character (not even base64's unused low
 * bits) can change unnoticed.
 */
export function verifyLeaveToken(token: unknown, secret: string): LeavingAddress | undefined {
  if (typeof token !== "string" || token.length > maxTokenLength || !leaveShape.test(token)) return undefined;
  const email = decode(token.split(".")[0]!);
  if (email === undefined || !same(token, leaveToken(email, secret))) return undefined;
  return listedAs(email);
}

/** The signup a confirm token names, under the same rules as verifyLeaveToken. */
export function verifyConfirmToken(token: unknown, secret: string): ConfirmingSignup | undefined {
  if (typeof token !== "string" || token.length > maxTokenLength || !confirmShape.test(token)) return undefined;
  const [emailPart, atPart] = token.split(".");
  const email = decode(emailPart!);
  const createdAt = decode(atPart!);
  if (email === undefined || createdAt === undefined) return undefined;
  if (Number.isNaN(Date.parse(createdAt)) || new Date(Date.parse(createdAt)).toISOString() !== createdAt) {
    return undefined;
  }
  if (!same(token, confirmToken(email, createdAt, secret))) return undefined;
  const address = listedAs(email);
  return address && { ...address, createdAt };
}
