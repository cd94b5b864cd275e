import { domainToASCII } from "node:url";
import isEmail from "validator/lib/isEmail";

export const maxEmailLength = 254;
export const maxLocalPartLength = 64;

export type EmailCheck = { ok: true; email: string; key: string } | { ok: false; reason: string };

// C0 controls (CR, LF, NUL, tab, ...), DEL and C1 controls: never part of an address.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Validates and normalises one address from the form. The syntax check is
 * validator.js's isEmail on the ASCII form; the domain of an IDN address is
 * converted with the WHATWG URL algorithm. Returns the address as typed
 * (trimmed) and the key it is unique on: lowercased, with an ASCII domain.
 */
export function checkEmail(input: string | null | undefined): EmailCheck {
  const email = (input ?? "").trim();
  if (email === "") return { ok: false, reason: "Enter an e-mail address." };
  if (controlCharacters.test(email)) return { ok: false, reason: "The e-mail address contains a control character." };
  const at = email.lastIndexOf("@");
  if (at <= 0 || at === email.length - 1) {
    return { ok: false, reason: "The e-mail address needs a name, an @ and a domain." };
  }
  const local = email.slice(0, at);
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
