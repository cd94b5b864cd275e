import { randomBytes } from "node:crypto";
import type { DepartureKind } from "../../signup-life/types";

/*
 * Every key of the Netlify Blobs store, spelled once; ../README.md's table says what each holds. <k> is an address's
 * keyed digest (secrets.ts): no address, nor a plain hash of one, is in a key. Times in keys sort as they read.
 */

const ms = (at: number) => String(at).padStart(15, "0");

export const layout = {
  record: (k: string) => `records/${k}`,
  pendingPrefix: "pending/",
  pending: (k: string, at: Date) => `pending/${k}/${ms(at.getTime())}-${randomBytes(4).toString("hex")}`,
  askedPrefix: "asked/",
  askedHour: (hour: string) => `asked/${hour}/`,
  asked: (hour: string, k: string) => `asked/${hour}/${k}`,
  leftPrefix: "left/",
  left: (k: string, at: number) => `left/${k}/${ms(at)}`,
  departuresPrefix: "departures/",
  departure: (at: string, how: DepartureKind, id: string) => `departures/${at}-${how}-${id}`,
  leaversPrefix: "leavers/",
  leaver: (day: string, digest: string) => `leavers/${day}/${digest}`,
  ledgerPrefix: "ledger/",
  ledger: (chunk: string) => `ledger/${chunk}`,
  code: (code: string) => `codes/${code}`,
  invitesOf: (code: string) => `invites/${code}/`,
  invite: (code: string, mailboxDigest: string, k: string) => `invites/${code}/${mailboxDigest}/${k}`,
  mailboxPrefix: "mailbox/",
  /** A day's counts, in the blob of the digest's first two characters: 256 a day at most. */
  mailboxCounts: (day: string, counter: string) => `mailbox/${day}/${counter.slice(0, 2)}`,
  setting: (name: string) => `settings/${name}`,
  suppressed: (fingerprint: string) => `suppressed/${fingerprint}`,
  mailDaysPrefix: "mail-days/",
  mailDay: (day: string) => `mail-days/${day}`,
  /** A record of the layout before keyed digests (../blobs-migrations.ts), under the plain SHA-256 of its key. */
  earlierPrefix: "signups/",
  earlier: (h: string) => `signups/${h}`,
} as const;

/** The UTC hour an asking falls in, as its asked/ folder names it. */
export const hourOf = (iso: string) => iso.slice(0, 13);

/** The part of a key at `position` (0 is the folder): its <k>, hour, day, digest or time. */
export const kOf = (key: string, position: number) => key.split("/")[position]!;
