import { keyedDigest } from "../fingerprints";

/*
 * One mailbox, however its address is spelled. Many providers deliver
 * `anna+news@`, and Gmail also `a.n.n.a@`, to anna's own inbox: each spelling
 * is a signup of its own, but the confirmation e-mails they cause all land
 * with one person, so a daily cap on those e-mails counts per mailbox
 * (confirmations.ts), or anyone could aim a stream of them at a stranger.
 */

/**
 * Providers that ignore dots in the local part, and the domain they file an
 * address under: Gmail's own (googlemail.com is the same mailbox). Short on
 * purpose: for any other domain a dot is part of the name, and counting two
 * people as one would hold back a stranger's mail, not an attacker's.
 */
const dotsIgnored: Readonly<Record<string, string>> = { "gmail.com": "gmail.com", "googlemail.com": "gmail.com" };

/**
 * The mailbox an address's key (email-address.ts: local part as typed,
 * domain in ASCII, all lower case) delivers to: the sub-address after the
 * first `+` dropped (RFC 5233; where a provider does not honour it, two
 * spellings only share a budget), and on Gmail the dots too.
 */
export function mailboxOf(emailKey: string): string {
  const at = emailKey.lastIndexOf("@");
  let local = emailKey.slice(0, at).toLowerCase();
  let domain = emailKey.slice(at + 1).toLowerCase();
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (domain in dotsIgnored) {
    domain = dotsIgnored[domain]!;
    local = local.replaceAll(".", "") || local;
  }
  return `${local}@${domain}`;
}

/**
 * What the store keeps to count a mailbox's e-mails for the daily cap: keyed digests (fingerprints.ts), never the
 * address, gone within two days. Every spelling counts against its mailbox; the address that is its mailbox's own
 * (mailboxOf gives it back as it is) also has a count of its own, for the one e-mail of the day's cap set apart for
 * it (its first of the day), which the spellings a stranger made up cannot spend (confirmations.ts).
 */
export function mailboxCounters(emailKey: string, secret: string): { mailbox: string; own?: string } {
  const mailbox = mailboxOf(emailKey);
  // The digest a signup keeps of its mailbox too (invites.ts's mailboxDigest).
  const counter = keyedDigest(secret, "mailbox", mailbox);
  return mailbox === emailKey
    ? { mailbox: counter, own: keyedDigest(secret, "address", mailbox) }
    : { mailbox: counter };
}

/** The UTC day a count belongs to: YYYY-MM-DD. */
export const mailDay = (at: Date) => at.toISOString().slice(0, 10);
