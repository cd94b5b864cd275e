import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { checkListedEmail } from "./email-address";
import { confirmPath, leavePath } from "./routes";

/*
 * The two personal links in every confirmation e-mail, for every deployment
 * (npm start, gatsby develop, Netlify's functions): "Confirm my spot" and
 * "Leave the waitlist". A token is the signup it was made for (the address
 * and when it was stored), encrypted and authenticated with AES-256-GCM under
 * a key derived from the secret, the link's own path bound in as associated
 * data. So it shows no address in any encoding (to mail scanners, server logs
 * or browser history), only we can make one, a changed character breaks it, and
 * a leave token can never confirm nor a confirm token remove. A confirm link
 * made for one signup does nothing to a later signup of the same address; a
 * leave link from any e-mail ever sent removes the address's signup of now
 * (leaving is as easy as joining). Reading one costs a decryption and one
 * lookup by key, whatever the list's size.
 *
 * Links mailed before this format (the address in base64, a dot, an HMAC) are
 * still accepted: a leave link must work in every e-mail ever sent, and a
 * confirm link until its signup is pruned (30 days). Those name no signup to
 * leave, so they remove the address whenever it was stored.
 */

/** A new random secret: 32 bytes, base64url. */
export function newLinkSecret(): string {
  return randomBytes(32).toString("base64url");
}

const derivedKeys = new Map<string, Buffer>();
/**
 * A 32-byte key derived from the secret (HKDF-SHA256) for the one use `use` names, never the secret itself: the
 * links' key here, the fingerprints' in fingerprints.ts. Each is derived once per secret.
 */
export function derivedKey(secret: string, use: string): Buffer {
  const id = `${use}\n${secret}`;
  let key = derivedKeys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "", use, 32));
    derivedKeys.set(id, key);
  }
  return key;
}

/** The encryption key of the links. */
const linkKey = (secret: string) => derivedKey(secret, "tandem waitlist link v2");

const nonceBytes = 12;
const tagBytes = 16;
/** The longest token an address of the longest allowed length makes, with room to spare. */
const maxTokenLength = 1200;
const sealedShape = /^[A-Za-z0-9_-]+$/;

function seal(purpose: string, email: string, createdAt: string, secret: string): string {
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv("aes-256-gcm", linkKey(secret), nonce);
  cipher.setAAD(Buffer.from(purpose, "utf8"));
  const sealed = Buffer.concat([cipher.update(`${createdAt}\n${email}`, "utf8"), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString("base64url");
}

/** The signup a sealed token names, when it is ours and for `purpose`; undefined for anything else. */
function open(purpose: string, token: string, secret: string): ConfirmingSignup | undefined {
  if (!sealedShape.test(token)) return undefined;
  const bytes = Buffer.from(token, "base64url");
  // Base64url that does not round-trip (padding bits set) is not a token we made.
  if (bytes.length <= nonceBytes + tagBytes || bytes.toString("base64url") !== token) return undefined;
  let plain: string;
  try {
    const decipher = createDecipheriv("aes-256-gcm", linkKey(secret), bytes.subarray(0, nonceBytes));
    decipher.setAAD(Buffer.from(purpose, "utf8"));
    decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
    const text = Buffer.concat([
      decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)),
      decipher.final(),
    ]);
    plain = new TextDecoder("utf-8", { fatal: true }).decode(text);
  } catch {
    return undefined;
  }
  const cut = plain.indexOf("\n");
  const createdAt = plain.slice(0, cut);
  if (cut < 0 || !isInstant(createdAt)) return undefined;
  const address = listedAs(plain.slice(cut + 1));
  return address && { ...address, createdAt };
}

const isInstant = (text: string) =>
  !Number.isNaN(Date.parse(text)) && new Date(Date.parse(text)).toISOString() === text;

/** The token that removes one signup (the address as stored, trimmed and NFC, and when it was stored). */
export function leaveToken(email: string, createdAt: string, secret: string): string {
  return seal(leavePath, email, createdAt, secret);
}

/** The token that confirms one signup. */
export function confirmToken(email: string, createdAt: string, secret: string): string {
  return seal(confirmPath, email, createdAt, secret);
}

/** The signup's personal leave link, at the canonical site (`siteUrl`, SITE_URL). */
export function leaveUrl(email: string, createdAt: string, secret: string, siteUrl: string): string {
  return `${siteUrl}${leavePath}?token=${leaveToken(email, createdAt, secret)}`;
}

/** The signup's personal confirm link, at the canonical site (`siteUrl`, SITE_URL). */
export function confirmUrl(email: string, createdAt: string, secret: string, siteUrl: string): string {
  return `${siteUrl}${confirmPath}?token=${confirmToken(email, createdAt, secret)}`;
}

export interface LeavingAddress {
  /** As the token names it, for the page. */
  email: string;
  /** What it is listed under (email-address.ts). */
  key: string;
  /** When the signup the link was made for was stored; undefined for a link mailed before links named one. */
  createdAt?: string;
}

export interface ConfirmingSignup extends LeavingAddress {
  /** When the signup it confirms was stored (UTC, ISO 8601). */
  createdAt: string;
}

/* Links mailed before links were sealed: the address in base64url, a dot, and an HMAC-SHA256 under the secret. */
const legacyLeaveShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;
const legacyConfirmShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;
const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const signature = (purpose: string, fields: readonly string[], secret: string) =>
  createHmac("sha256", secret)
    .update([purpose, ...fields].join(" "), "utf8")
    .digest("base64url");

/** A leave token as links were made before they were sealed (kept for the tests of old links). */
export function legacyLeaveToken(email: string, secret: string): string {
  return `${encode(email)}.${signature(leavePath, [email], secret)}`;
}

/** A confirm token as links were made before they were sealed. */
export function legacyConfirmToken(email: string, createdAt: string, secret: string): string {
  return `${encode(email)}.${encode(createdAt)}.${signature(confirmPath, [email, createdAt], secret)}`;
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

/**
 * The address a token names, in its canonical form (email-address.ts), and
 * what it is listed under; undefined when it is no valid address. Only we
 * make tokens: one names an address as it was stored, which for signups from
 * before addresses had one canonical form may be spelled otherwise (a domain
 * in capitals). Its key is the same.
 */
function listedAs(email: string): LeavingAddress | undefined {
  // As listed, look-alikes the form refuses today included: a leave link must work in every e-mail ever sent.
  const checked = checkListedEmail(email);
  return checked.ok ? { email: checked.email, key: checked.key } : undefined;
}

/**
 * The signup a leave token names, when it is ours under `secret`; undefined
 * for anything else: empty, malformed, tampered with, made under another
 * secret, a confirm token, or naming something that is not a valid address.
 * An old link (legacyLeaveToken) names the address only.
 */
export function verifyLeaveToken(token: unknown, secret: string): LeavingAddress | undefined {
  if (typeof token !== "string" || token.length > maxTokenLength) return undefined;
  if (!legacyLeaveShape.test(token)) return open(leavePath, token, secret);
  // The whole token is compared with the one we would make, in constant time, so no character changes unnoticed.
  const email = decode(token.split(".")[0]!);
  if (email === undefined || !same(token, legacyLeaveToken(email, secret))) return undefined;
  return listedAs(email);
}

/** The signup a confirm token names, under the same rules as verifyLeaveToken. */
export function verifyConfirmToken(token: unknown, secret: string): ConfirmingSignup | undefined {
  if (typeof token !== "string" || token.length > maxTokenLength) return undefined;
  if (!legacyConfirmShape.test(token)) return open(confirmPath, token, secret);
  const [emailPart, atPart] = token.split(".");
  const email = decode(emailPart!);
  const createdAt = decode(atPart!);
  if (email === undefined || createdAt === undefined || !isInstant(createdAt)) return undefined;
  if (!same(token, legacyConfirmToken(email, createdAt, secret))) return undefined;
  const address = listedAs(email);
  return address && { ...address, createdAt };
}
