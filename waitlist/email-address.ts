import { domainToASCII } from "node:url";
import isEmail from "validator/lib/isEmail.js";

const maxEmailLength = 254;
const maxLocalPartLength = 64;

export type EmailCheck = { ok: true; email: string; key: string } | { ok: false; reason: string };

// Control characters (Cc: CR, LF, NUL, tab, DEL, C1) and the line and paragraph separators: never in an address.
const controlCharacters = /[\p{Cc}\u2028\u2029]/u;
// Format characters (Cf): invisible ones such as the zero-width space (U+200B) and those that turn text
// around such as U+202E, which would make an address read as another in a mail client or a spreadsheet.
const formatCharacters = /\p{Cf}/u;

/**
 * Validates and normalises one address from the form. The address is taken
 * in Unicode's NFC form, so that the composed and decomposed spellings of one
 * address (é as one code point or as e and a combining accent) are one
 * signup. The syntax check is validator.js's isEmail on the ASCII form; the
 * domain of an IDN address is converted with the WHATWG URL algorithm.
 * Returns the address (trimmed, NFC) and the key it is unique on:
 * lowercased, with an ASCII domain.
 */
export function checkEmail(input: string | null | undefined): EmailCheck {
  const email = (input ?? "").trim().normalize("NFC");
  if (email === "") return { ok: false, reason: "Enter an e-mail address." };
  if (controlCharacters.test(email)) return { ok: false, reason: "The e-mail address contains a control character." };
  if (formatCharacters.test(email)) {
    return { ok: false, reason: "The e-mail address contains an invisible or direction-changing character." };
  }
  const at = email.lastIndexOf("@");
  if (at <= 0 || at === email.length - 1) {
    return { ok: false, reason: "The e-mail address needs a name, an @ and a domain." };
  }
  const local = email.slice(0, at);
  // RFC 5321 allows "quoted" local parts, spaces and all; mail servers refuse many of them, and a
  // quoted <...> reads as another address in a mail client. Nobody signs up with one by accident.
  if (local.includes('"')) {
    return { ok: false, reason: "Addresses with quotation marks are not accepted; write the address without them." };
  }
  const asciiDomain = domainToASCII(email.slice(at + 1).toLowerCase());
  if (asciiDomain === "") return { ok: false, reason: "The domain of the e-mail address is not valid." };
  if (local.length > maxLocalPartLength) {
    return { ok: false, reason: `The part before the @ is longer than ${maxLocalPartLength} characters.` };
  }
  const ascii = `${local}@${asciiDomain}`;
  if (email.length > maxEmailLength || ascii.length > maxEmailLength) {
    return { ok: false, reason: `The e-mail address is longer than ${maxEmailLength} characters.` };
  }
  if (!isEmail(ascii, { allow_display_name: false, allow_ip_domain: false, require_tld: true })) {
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
