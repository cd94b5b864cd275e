import { domainToASCII, domainToUnicode } from "node:url";
import addressparser from "nodemailer/lib/addressparser";
import isEmail from "validator/lib/isEmail.js";

const maxEmailLength = 254;
const maxLocalPartLength = 64;

export type EmailCheck = { ok: true; email: string; key: string } | { ok: false; reason: string };

// Control characters (Cc: CR, LF, NUL, tab, DEL, C1) and the line and paragraph separators: never in an address.
const controlCharacters = /[\p{Cc}\u2028\u2029]/u;
// Invisible characters: format characters (Cf: the zero-width space U+200B, U+202E that turns text around) and
// every default-ignorable code point (variation selectors, U+034F, the Mongolian ones, Hangul fillers): an
// address holding one reads as another in a mail client or a spreadsheet, and is another row.
const invisibleCharacters = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
// Every space, U+0020 and the 17 other space separators (Zs) among them: a mail parser reads one inside an
// address as the gap between a display name and the address, and mails someone else.
const spaces = /\p{White_Space}/u;
// Code points with no character yet, for private use, or half of a UTF-16 pair: no mail system agrees on them.
const unassigned = /[\p{Cn}\p{Co}\p{Cs}]/u;

/**
 * Validates one address from the form and makes its one canonical form,
 * the one stored, mailed, exported and shown:
 * - trimmed, in Unicode's NFC form (é as one code point or as e and a
 *   combining accent are one address);
 * - the domain as IDNA maps it (UTS #46, the WHATWG URL algorithm: lower
 *   case, fullwidth letters and the ideographic full stop mapped), written in
 *   Unicode, so `Ada@ＥXAMPLE。com` is `Ada@example.com`;
 * - refused when it holds a space, a control, an invisible or an unassigned
 *   code point, or when nodemailer's own address parser would read it as
 *   anything but exactly this one address.
 * The part before the @ keeps its case and may hold letters beyond ASCII
 * (SMTPUTF8; most providers deliver them). The key it is unique on is the
 * canonical form lowercased, with the domain in ASCII (punycode), as the mail
 * server is given it.
 */
export function checkEmail(input: string | null | undefined): EmailCheck {
  const typed = (input ?? "").trim().normalize("NFC");
  if (typed === "") return { ok: false, reason: "Enter an e-mail address." };
  if (controlCharacters.test(typed)) return { ok: false, reason: "The e-mail address contains a control character." };
  if (invisibleCharacters.test(typed)) {
    return { ok: false, reason: "The e-mail address contains an invisible or direction-changing character." };
  }
  const at = typed.lastIndexOf("@");
  if (at <= 0 || at === typed.length - 1) {
    return { ok: false, reason: "The e-mail address needs a name, an @ and a domain." };
  }
  const local = typed.slice(0, at);
  // RFC 5321 allows "quoted" local parts, spaces and all; mail servers refuse many of them, and a
  // quoted <...> reads as another address in a mail client. Nobody signs up with one by accident.
  if (local.includes('"')) {
    return { ok: false, reason: "Addresses with quotation marks are not accepted; write the address without them." };
  }
  if (spaces.test(typed)) return { ok: false, reason: "The e-mail address contains a space." };
  if (unassigned.test(typed)) {
    return { ok: false, reason: "The e-mail address contains a character that is not a letter." };
  }
  // Lower case first: Node 22's IDNA maps capital ẞ (U+1E9E) to "ss", Node 24's to "ß" (Unicode 15.1); lower-cased
  // it is ß everywhere, so one address has one key on every runtime.
  const asciiDomain = domainToASCII(typed.slice(at + 1).toLowerCase());
  if (asciiDomain === "") return { ok: false, reason: "The domain of the e-mail address is not valid." };
  if (local.length > maxLocalPartLength) {
    return { ok: false, reason: `The part before the @ is longer than ${maxLocalPartLength} characters.` };
  }
  const email = `${local}@${domainToUnicode(asciiDomain).normalize("NFC")}`;
  const ascii = `${local}@${asciiDomain}`;
  if (email.length > maxEmailLength || ascii.length > maxEmailLength) {
    return { ok: false, reason: `The e-mail address is longer than ${maxEmailLength} characters.` };
  }
  if (!isEmail(ascii, { allow_display_name: false, allow_ip_domain: false, require_tld: true })) {
    return { ok: false, reason: "That is not a valid e-mail address." };
  }
  // What nodemailer will make of it, To: header and envelope alike: exactly this address, no display name.
  const parsed = addressparser(email);
  if (parsed.length !== 1 || parsed[0]!.name !== "" || parsed[0]!.address !== email) {
    return { ok: false, reason: "That is not a valid e-mail address." };
  }
  return { ok: true, email, key: ascii.toLowerCase() };
}

/** For logs, which never hold a full address: "ada@example.com" becomes "a***@example.com". */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  return `${email[0]}***${email.slice(at)}`;
}
