import { domainToASCII, domainToUnicode } from "node:url";
import { maskEmail } from "../email-address";

/*
 * A mail server's words, made fit for a log line, the store's `confirmationError` and the founders' output. Real
 * servers quote the recipient in their replies ("550 5.1.1 <bob@example.com>: Recipient address rejected" from
 * Postfix, "...failed the check in region US-EAST-1: bob@example.com" from Amazon SES), sometimes without brackets,
 * as the part before the @ alone, percent- or quoted-printable-encoded, or with the domain in punycode. The Privacy
 * Policy promises that logs never hold an address and that a failed mail's is only shown shortened: every error that
 * may hold one goes through redactAddresses before it is logged or kept.
 */

/** What cannot be part of an address token: spaces, brackets, separators and quotes. */
const edge = String.raw`\s<>()\[\]{},;:"'\\`;
/** A run of address characters around an @, written plainly, percent-encoded, quoted-printable or as an HTML entity. */
const addressToken = new RegExp(
  [
    // A quoted local part ("bob smith"@example.com).
    String.raw`"(?:[^"\\\r\n]|\\.)*"@[^${edge}@]+`,
    String.raw`[^${edge}@]+@[^${edge}@]+`,
    // An escaped @ only before a domain with a dot, so that "rate=40/min" stays as it is.
    String.raw`[^${edge}@]+(?:%40|=40|&#64;|&#x40;)[^${edge}@.]+(?:\.[^${edge}@.]+)+`,
  ].join("|"),
  "giu",
);

/** Percent, quoted-printable and HTML-entity escapes undone, as far as they can be; the text as it is otherwise. */
function decoded(token: string): string {
  let text = token.replace(/&#x40;|&#64;/gi, "@");
  if (/%[0-9a-f]{2}/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      text = text.replace(/%40/g, "@");
    }
  }
  if (/=[0-9A-F]{2}/.test(text)) {
    const bytes = text.replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    text = Buffer.from(bytes, "latin1").toString("utf8");
  }
  return text;
}

/** Special characters of a regular expression, escaped. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** UTF-8 bytes as quoted-printable writes them (=XX, upper case), every byte, or all but the printable ASCII ones. */
function quotedPrintable(text: string, all: boolean): string {
  return [...Buffer.from(text, "utf8")]
    .map((byte) =>
      !all && byte > 32 && byte < 127 && byte !== 61 && byte !== 64
        ? String.fromCharCode(byte)
        : `=${byte.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

/** A text as a mail server may write it: as it is, in NFC and NFD, percent-encoded, quoted-printable. */
function spellings(text: string): string[] {
  const forms = new Set<string>();
  for (const form of [text.normalize("NFC"), text.normalize("NFD")]) {
    const percent = encodeURIComponent(form);
    forms
      .add(form)
      .add(percent)
      .add(percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
    forms.add(quotedPrintable(form, false)).add(quotedPrintable(form, true));
  }
  return [...forms].filter((form) => form !== "");
}

/**
 * The recipient's own spellings: the whole address (as stored, with its domain in Unicode and in ASCII) and the
 * part before the @ alone, each in every spelling above; a pattern for each, longest first.
 */
function recipientPatterns(recipient: string): { whole: string; local: string } | undefined {
  const at = recipient.lastIndexOf("@");
  if (at < 1) return undefined;
  const local = recipient.slice(0, at);
  const domain = recipient.slice(at + 1);
  const domains = new Set([domain, domainToASCII(domain) || domain, domainToUnicode(domain) || domain]);
  const whole = [...domains].flatMap((one) => spellings(`${local}@${one}`));
  const byLength = (forms: string[]) =>
    [...new Set(forms)]
      .sort((a, b) => b.length - a.length)
      .map(literal)
      .join("|");
  return { whole: byLength(whole), local: byLength(spellings(local)) };
}

/**
 * `text` with every address-like token shortened as maskEmail does ("b***@example.com"), however it is written:
 * bracketed or not, with a quoted local part, percent- or quoted-printable-encoded, in Unicode or punycode. With the
 * `recipient` the text is about, its own address and the part before its @ are caught too in any case and in those
 * encodings, even standing alone ("User bob unknown" becomes "User *** unknown").
 */
export function redactAddresses(text: string, recipient?: string): string {
  const own = recipient === undefined ? undefined : recipientPatterns(recipient);
  const sources = [
    // A group that never matches stands for each of the recipient's when there is none.
    own ? `(${own.whole})` : "((?!))",
    // The part before the @ alone, as a word of its own: not inside a longer name.
    own ? String.raw`(?<![\p{L}\p{N}._%+=-])(${own.local})(?![\p{L}\p{N}._%+-]|=[0-9A-F]{2})` : "((?!))",
    `(${addressToken.source})`,
  ];
  const pattern = new RegExp(sources.join("|"), "giu");
  return text.replace(pattern, (match, whole?: string, local?: string) => {
    if (whole !== undefined) return maskEmail(recipient!);
    if (local !== undefined) return "***";
    return maskEmail(decoded(match));
  });
}

/**
 * What a failed send's error says, fit to log and keep: its first line (nodemailer puts the server's reply there),
 * every address in it shortened, the recipient's own however written.
 */
export function mailErrorReason(error: unknown, recipient: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return redactAddresses(message.split("\n")[0] || "unknown error", recipient);
}
