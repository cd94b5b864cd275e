import { domainToASCII, domainToUnicode } from "node:url";
import addressparser from "nodemailer/lib/addressparser";
import unicodeProperties from "regenerate-unicode-properties";
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

/*
 * Look-alikes (Unicode's UTS #39, Unicode Security Mechanisms). A letter
 * from another alphabet (a Cyrillic і in victіm@example.com, an а in
 * pаypal.com) or a compatibility form of a plain one (ſ, ², ĳ, ｆｕｌｌwidth)
 * makes an address that reads as another: a second row for one person, or a
 * stranger's address dressed as a known one. Each is its own mailbox, so
 * neither can be made canonical: a new signup with one is refused.
 */

/** Characters that belong to no script of their own (digits, punctuation, combining marks): Common and Inherited. */
const anyScript = /^[\p{scx=Zyyy}\p{scx=Zinh}]$/u;

/**
 * Every script this runtime's regular expressions know, by Script_Extensions
 * (a character used in several scripts, such as the Japanese and Chinese
 * comma, is in each). regenerate-unicode-properties names them; one newer
 * than this Node's Unicode is no pattern here, and its characters are
 * unassigned, refused already.
 */
const scripts = (unicodeProperties.get("Script_Extensions") ?? []).flatMap((name) => {
  if (name === "Common" || name === "Inherited") return [];
  try {
    return [{ name, has: new RegExp(`^\\p{scx=${name}}$`, "u") }];
  } catch {
    return [];
  }
});

/**
 * UTS #39's augmented script sets: Han counts as Japanese, Korean and Han
 * with Bopomofo too, Hiragana and Katakana as Japanese, Hangul as Korean,
 * Bopomofo as Han with Bopomofo; each writing system's label is one script.
 */
const writingSystems = [
  { name: "Japanese", has: /^[\p{scx=Hani}\p{scx=Hira}\p{scx=Kana}]$/u },
  { name: "Korean", has: /^[\p{scx=Hani}\p{scx=Hang}]$/u },
  { name: "Han with Bopomofo", has: /^[\p{scx=Hani}\p{scx=Bopo}]$/u },
];

/**
 * UTS #39's "Highly Restrictive" level: one script per label, or Latin with
 * the scripts written beside it in Japan, Korea, China and Taiwan. Its
 * "Moderately Restrictive" level would let Latin mix with Armenian, whose օ
 * is an o, and with every other script but Cyrillic and Greek.
 */
const allowedMixes = [
  /^[\p{scx=Zyyy}\p{scx=Zinh}\p{scx=Latn}\p{scx=Hani}\p{scx=Hira}\p{scx=Kana}]*$/u,
  /^[\p{scx=Zyyy}\p{scx=Zinh}\p{scx=Latn}\p{scx=Hani}\p{scx=Bopo}]*$/u,
  /^[\p{scx=Zyyy}\p{scx=Zinh}\p{scx=Latn}\p{scx=Hani}\p{scx=Hang}]*$/u,
];

/**
 * The two scripts a label (the part before the @, or one part of the
 * domain) mixes, by UTS #39's Highly Restrictive level; undefined when it
 * is one script's. Common and Inherited characters count for every script.
 */
function mixedScripts(label: string): [string, string] | undefined {
  if (allowedMixes.some((mix) => mix.test(label))) return undefined;
  let shared: { name: string; has: RegExp }[] | undefined;
  for (const char of label) {
    if (anyScript.test(char)) continue;
    if (shared === undefined) {
      shared = [...scripts, ...writingSystems].filter((script) => script.has.test(char));
      continue;
    }
    const left = shared.filter((script) => script.has.test(char));
    if (left.length === 0) {
      const other = scripts.find((script) => script.has.test(char))?.name ?? "unknown";
      return [shared[0]!.name, other].map((name) => name.replaceAll("_", " ")) as [string, string];
    }
    shared = left;
  }
  return undefined;
}

/** A decimal digit (Nd): every number system's ten are consecutive code points, 0 first. */
const decimalDigit = /^\p{Nd}$/u;

/** Whether a label mixes digits of two number systems (UTS #39, 5.3): 1৪ reads as 18. */
function mixesNumberSystems(label: string): boolean {
  const zeros = new Set<number>();
  for (const char of label) {
    if (!decimalDigit.test(char)) continue;
    const code = char.codePointAt(0)!;
    let first = code;
    while (decimalDigit.test(String.fromCodePoint(first - 1))) first--;
    zeros.add(code - ((code - first) % 10));
  }
  return zeros.size > 1;
}

/** Why a canonical address reads as another, in the visitor's words; undefined when it does not. */
function lookAlike(local: string, domain: string): string | undefined {
  if (local !== local.normalize("NFKC") || domain !== domain.normalize("NFKC")) {
    return "The e-mail address contains a special form of a character (such as \u00B2, \uFB01 or a full-width letter) that passes for another; type it with ordinary letters and digits.";
  }
  for (const [label, where] of [
    [local, "before the @"],
    ...domain.split(".").map((part) => [part, "in its domain"]),
  ] as const) {
    const mixed = mixedScripts(label);
    if (mixed) {
      return `The e-mail address mixes letters from different alphabets (${mixed[0]} and ${mixed[1]}) ${where}: a letter may only look like the one you meant. Type it in one alphabet.`;
    }
    if (mixesNumberSystems(label)) {
      return `The e-mail address mixes digits of different number systems ${where}; type its digits in one system.`;
    }
  }
  return undefined;
}

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
 *   anything but exactly this one address;
 * - refused when it reads as another (lookAlike): a compatibility character
 *   (one that Unicode's NFKC form changes: ſ, ², ĳ, a full-width letter before
 *   the @), letters of two scripts in one label beyond UTS #39's Highly
 *   Restrictive level (victіm@ with a Cyrillic і), or digits of two number
 *   systems in one label.
 * The part before the @ keeps its case and may hold letters beyond ASCII
 * (SMTPUTF8; most providers deliver them). The key it is unique on is the
 * canonical form lowercased, with the domain in ASCII (punycode), as the mail
 * server is given it.
 */
export function checkEmail(input: string | null | undefined): EmailCheck {
  const checked = checkListedEmail(input);
  if (!checked.ok) return checked;
  const at = checked.email.lastIndexOf("@");
  const reason = lookAlike(checked.email.slice(0, at), checked.email.slice(at + 1));
  return reason ? { ok: false, reason } : checked;
}

/**
 * An address that may be on the list already, in its canonical form and
 * under its key: checkEmail without its refusal of look-alikes, which came
 * later. A leave or confirm link, a founder's remove and an unsubscribe file
 * name signups stored before then too, and must reach each one; the form
 * (and whatever adds a signup) uses checkEmail.
 */
export function checkListedEmail(input: string | null | undefined): EmailCheck {
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
