import { createHash } from "node:crypto";
import { policyChangeMessage, type AnnouncedChange } from "../mail/policy-change-message";
import type { Lane } from "../mail/sender";
import { isMember, whyNotMailed, type NotMailed } from "../signup-life/rules";
import type { Signup } from "../signup-life/types";
import type { WaitlistSite } from "../site-settings";
import type { FullStore } from "../stores/store";

/*
 * The Privacy Policy promises that a significant change is e-mailed to the waitlist members who confirmed, when it is
 * posted (npm run waitlist -- announce-policy-change): one message to each member the rule allows, through the one
 * sender. Each person is read again by key right before their message (a leave during the run is honoured) and noted
 * in the store before it goes (noteAnnouncement), so a second run of the same announcement, or one resumed after a
 * crash, mails nobody twice. One whose message may have gone (the connection dropped as it was sent) keeps the note.
 */

/**
 * What names an announcement: each policy's path, the day of its change and the fingerprint of the text announced.
 * The same change announced again has the same id, and the store notes it per person (noteAnnouncement).
 */
export function announcementId(changes: readonly AnnouncedChange[]): string {
  const named = changes.map((change) => `${change.path} ${change.date} ${change.fingerprint ?? ""}`).sort();
  return `policy-change-${createHash("sha256").update(named.join("\n"), "utf8").digest("hex").slice(0, 16)}`;
}

/** Who is a member, and why each member the rule leaves out is (let in, restricted, undeliverable). */
export function announcementAudience(everyone: readonly Signup[]) {
  const members = everyone.filter(isMember);
  const leftOut: Partial<Record<NotMailed, number>> = {};
  const audience: Signup[] = [];
  for (const one of members) {
    const why = whyNotMailed("announcement", one);
    if (why === undefined) audience.push(one);
    else leftOut[why] = (leftOut[why] ?? 0) + 1;
  }
  return { audience, leftOut };
}

export interface AnnouncementMail extends WaitlistSite {
  linkSecret: string;
  changes: AnnouncedChange[];
  postalAddress: string;
}

/**
 * The announcement as the sender takes it. `again`: sent also to those an earlier run sent it (--again); the note an
 * earlier run made stays whatever this one comes to. `before` counts those an earlier run sent it, not sent again.
 */
export function announcementLane(
  store: Pick<FullStore, "lookup" | "noteAnnouncement">,
  mail: AnnouncementMail,
  { again = false }: { again?: boolean } = {},
) {
  const id = announcementId(mail.changes);
  /** Those this run noted: a note it made is taken back when the message did not go. */
  const noted = new Set<string>();
  /** Each address as listed right before its message. */
  const listedNow = new Map<string, string>();
  const counts = { before: 0 };
  const undo = async (person: Signup) => {
    if (noted.delete(person.emailKey)) await store.noteAnnouncement(person.emailKey, id, { undo: true });
  };
  const lane: Lane<Signup> = {
    kind: "announcement",
    async claim(person) {
      // Read again: whoever left or was removed since the list was read is not mailed, and a new signup of the
      // address since (confirmed or not) is not the one that was told of this change.
      const listed = await store.lookup(person.emailKey);
      if (listed === undefined || listed.confirmedAt === null || listed.createdAt !== person.createdAt) {
        return "not-ours";
      }
      listedNow.set(person.emailKey, listed.email);
      // Noted before it is sent, so a run that stops half-way and is run again mails nobody twice; the note is
      // refused to one the rule no longer allows (signup-life's noteAnnouncement).
      if (await store.noteAnnouncement(person.emailKey, id)) noted.add(person.emailKey);
      else if (!again) {
        counts.before++;
        return "not-ours";
      }
      return 1;
    },
    message: (person) =>
      policyChangeMessage(listedNow.get(person.emailKey) ?? person.email, {
        ...mail,
        emailKey: person.emailKey,
        createdAt: person.createdAt,
      }),
    sent: async (person) => void listedNow.delete(person.emailKey),
    // Not sent: a later run tries again (a note this run made is taken back; one of an earlier run stays).
    refused: undo,
    retry: undo,
    held: undo,
    unknown: async (person) => void noted.delete(person.emailKey),
  };
  return { lane, id, counts };
}
