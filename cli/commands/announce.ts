import { createHash } from "node:crypto";
import { maskEmail } from "../../waitlist/email-address";
import { mailConfig, waitlistConfig } from "../../config/env";
import { projectFolders } from "../../config/folders";
import { isoDate, readPolicySources, policyRecords, type PolicyRecord } from "../../waitlist/policies";
import { createMailer } from "../../waitlist/mail/mailer";
import { mailErrorReason } from "../../waitlist/mail/redact";
import { policyChangeMessage, type AnnouncedChange } from "../../waitlist/mail/policy-change-message";
import { isMember, isRestricted, mayBeAnnouncedTo } from "../../waitlist/signup-life/rules";
import { suppressedUntil } from "../../waitlist/suppressions";
import { command } from "../command";
import { PendingError, UsageError } from "../errors";
import { linkSecretOf, paceOf } from "../open-store";
import { heldWords, takeWaiting, type MailSent, type PaceOutcome } from "../../waitlist/mail/pace";
import { classifyMailFailure } from "../../waitlist/mail/replies";
import { plural, postalAddressShown, requirePostalAddress } from "../sender";

/*
 * The Privacy Policy promises that a significant change is e-mailed to the waitlist members who confirmed, when it
 * is posted: this is that e-mail, one to each, sent by a founder after the deploy that publishes the change. What it
 * says is the policy's own record, the newest entries under "What changed". A whole-list command: it reads every
 * signup once and sends one message per confirmed signup, one after another, each read again by its key first (a
 * leave during the run is honoured) and noted in the store before it goes (noteAnnouncement), so a second run of
 * the same announcement, or one resumed after a crash, mails nobody twice. A crash between the note and the send
 * leaves that one person unmailed rather than mailed twice.
 */

const today = () => new Date().toISOString().slice(0, 10);

/** The changes to announce: each policy (or the one named) whose newest entry is dated `date`, with that day's entries. */
export function changesToAnnounce(
  records: readonly PolicyRecord[],
  { date, policy }: { date: string; policy?: string },
): AnnouncedChange[] {
  const chosen = policy === undefined ? records : records.filter((record) => record.slug === policy);
  if (policy !== undefined && chosen.length === 0) {
    throw new UsageError(
      `No policy "${policy}": use ${records.map((record) => `--policy ${record.slug}`).join(" or ")}.`,
    );
  }
  const changes = chosen
    .filter((record) => record.updates[0]?.date === date)
    .map((record) => ({
      title: record.title,
      path: `/${record.slug}/`,
      date,
      summaries: record.updates.filter((entry) => entry.date === date).map((entry) => entry.summary),
    }));
  if (changes.length === 0) {
    const newest = chosen
      .map((record) => `${record.title} ${record.updates[0]?.date ?? "(no change since it took effect)"}`)
      .join(", ");
    throw new UsageError(
      `Nothing sent: no policy's newest change under "What changed" is dated ${date} (the newest: ${newest}). Give the day of the change with --date YYYY-MM-DD.`,
    );
  }
  return changes;
}

/**
 * What names an announcement: each policy's path, the day of its change and the fingerprint of the text announced.
 * The same change announced again has the same id, and the store notes it per person (noteAnnouncement).
 */
export function announcementId(changes: readonly AnnouncedChange[]): string {
  const named = changes.map((change) => `${change.path} ${change.date} ${change.fingerprint ?? ""}`).sort();
  return `policy-change-${createHash("sha256").update(named.join("\n"), "utf8").digest("hex").slice(0, 16)}`;
}

export const announcePolicyChange = command({
  name: "announce-policy-change",
  usage: [
    "announce-policy-change [--policy SLUG] [--date YYYY-MM-DD] [--dry-run] [--again]",
    "e-mail every confirmed signup a policy's change: each policy whose newest",
    'entry under "What changed" is dated today, UTC (or --date), or only --policy;',
    "with its summary, a link to the policy, their own leave link and the",
    "controller's postal address; through SMTP_URL only. Each person once: a",
    "second run sends only what the first did not, unless --again",
  ],
  check: ({ date, policy, ...options }, env) => {
    const day = date ?? today();
    if (isoDate(day) !== day) throw new UsageError(`--date must be a day written as YYYY-MM-DD (got "${day}").`);
    if (!options["dry-run"]) {
      // Real people's mail: a file on this machine reaches none of them, and a leave on the site cannot delete it.
      if (!mailConfig(env()).smtpUrl) {
        throw new UsageError(
          "Nothing sent: set SMTP_URL to the mail server the site sends through. Without it the e-mails would only be written to the outbox on this machine, where they reach nobody and a leave cannot delete them; --dry-run shows the message.",
        );
      }
      requirePostalAddress(env());
    }
    return { date: day, policy };
  },
  run: async ({ input, options, env, opened }) => {
    const changes = changesToAnnounce(policyRecords(readPolicySources(projectFolders.legal)), input);
    const { store } = opened;
    const everyone = await store.all();
    // Members the mail still reaches and may, not yet let in (signup-life's rule): one whose mail bounced for good is
    // kept, never mailed; one let in has had the e-mail their consent was for; a restricted one is used for nothing.
    const confirmed = everyone.filter(mayBeAnnouncedTo);
    const letInAlready = everyone.filter((row) => isMember(row) && row.wave !== null && !isRestricted(row)).length;
    const restricted = everyone.filter((row) => isMember(row) && isRestricted(row)).length;
    const undeliverable = everyone.filter(
      (row) => row.state === "undeliverable" && row.wave === null && !isRestricted(row),
    ).length;
    const { siteUrl, contactEmail } = waitlistConfig(env);
    const postalAddress = postalAddressShown(env);
    const what = changes.map((change) => `${change.title} (${change.date})`).join(" and ");
    const people = plural(confirmed.length, "confirmed signup");
    const bounced = `${plural(undeliverable, "member")} whose mail bounced for good`;
    const skippedBounced = [
      ...(undeliverable > 0 ? [`Skipped ${bounced}: never mailed again.`] : []),
      ...(letInAlready > 0
        ? [
            `Skipped ${plural(letInAlready, "member")} let in already: their consent was to hear from us until early access opened for them.`,
          ]
        : []),
      ...(restricted > 0 ? [`Skipped ${plural(restricted, "member")} whose entry is restricted.`] : []),
    ];
    if (options["dry-run"]) {
      // A dry run writes nothing, not even the store's secret: the sample's leave link is a stand-in.
      const sample = policyChangeMessage("someone@example.com", {
        emailKey: "someone@example.com",
        createdAt: new Date(0).toISOString(),
        linkSecret: "a stand-in secret for the dry run's sample",
        siteUrl,
        contactEmail,
        changes,
        postalAddress,
      });
      const text = sample.text.replace(/\S+\/waitlist\/leave\?token=\S+/, "<their own leave link>");
      const probe = mailConfig(env).smtpUrl ? createMailer(mailConfig(env)) : undefined;
      probe?.close();
      const via = probe?.destination ?? "SMTP_URL, which is not set";
      const skipping = skippedBounced.map((line) => `${line}\n`).join("");
      return `Would send the change of the ${what} to ${people} (via ${via}), each with their own leave link, except those an earlier run sent it and those whose mailbox is held after a bounce or a spam complaint:\n${skipping}\nSubject: ${sample.subject}\n\n${text.trimEnd()}`;
    }
    const id = announcementId(changes);
    const again = Boolean(options.again);
    const linkSecret = await linkSecretOf(opened, env);
    const mailer = createMailer(mailConfig(env));
    const pace = paceOf(opened, env);
    let stoppedBy: string | undefined;
    let sent = 0;
    let gone = 0;
    let before = 0;
    let held = 0;
    const refused: string[] = [];
    try {
      for (const row of confirmed) {
        // Read again right before the send: whoever left or was removed since the list was read is not mailed, and
        // a new signup of the address since (confirmed or not) is not the one that was told of this change.
        const listed = await store.lookup(row.emailKey);
        if (listed === undefined || listed.confirmedAt === null || listed.createdAt !== row.createdAt) {
          gone++;
          continue;
        }
        // Its mailbox bounced or complained since (suppressions.ts), whichever spelling: not mailed, and not noted.
        if (await suppressedUntil(store, linkSecret, row.emailKey, new Date())) {
          held++;
          continue;
        }
        // Noted before it is sent, so a run that stops half-way and is run again mails nobody twice.
        const noted = await store.noteAnnouncement(row.emailKey, id);
        if (!noted && !again) {
          before++;
          continue;
        }
        const message = policyChangeMessage(listed.email, {
          emailKey: row.emailKey,
          createdAt: listed.createdAt,
          linkSecret,
          siteUrl,
          contactEmail,
          changes,
          postalAddress,
        });
        // Within the provider's limits together with the site's own senders: a throttle's short hold is waited for and
        // the message tried again; a quota or the server down stops the run.
        let told = "throttle" as PaceOutcome;
        while (told === "throttle") {
          // The run's first message tries through a hold of the server down, which it ends once sent.
          const ticket = await takeWaiting(pace, { probe: sent === 0 });
          let timing: MailSent | void = undefined;
          if (!ticket.go) {
            if (noted) await store.noteAnnouncement(row.emailKey, id, { undo: true });
            stoppedBy = heldWords(ticket);
            break;
          }
          try {
            timing = await mailer.send(message);
            told = "sent";
            sent++;
          } catch (error) {
            const kind = classifyMailFailure(error);
            told =
              kind === "recipient" ? "refused" : kind === "sending" ? "down" : kind === "unknown" ? "transient" : kind;
            if (told === "throttle") continue;
            // Not sent: a later run tries again (a note this run made is taken back; one of an earlier run stays).
            // Unknown (the connection lost after the whole message): it may have gone, so the note stays (replies.ts).
            if (noted && kind !== "unknown") await store.noteAnnouncement(row.emailKey, id, { undo: true });
            const unknown = kind === "unknown" ? " (sent or not, unknown: not sent again)" : "";
            refused.push(`${maskEmail(listed.email)}: ${mailErrorReason(error, listed.email)}${unknown}`);
          } finally {
            await ticket.done(told, timing);
          }
        }
        if (stoppedBy) break;
      }
    } finally {
      mailer.close();
    }
    const lines = [`Sent the change of the ${what} to ${sent} of ${people} (via ${mailer.destination}).`];
    if (before > 0) {
      const was = before === 1 ? "was" : "were";
      lines.push(
        `${before} ${was} sent it by an earlier run (or ${was} being sent it when a run stopped): not sent again; --again sends it to them again.`,
      );
    }
    if (gone > 0)
      lines.push(`${plural(gone, "person", "people")} left or signed up anew since the list was read: not sent.`);
    lines.push(...skippedBounced);
    if (held > 0) {
      lines.push(
        `Skipped ${plural(held, "member")} whose mailbox is held after a bounce or a spam complaint: not sent.`,
      );
    }
    if (stoppedBy) {
      throw new PendingError(
        `${lines.join("\n")}\nStopped: ${stoppedBy}. Run it again then: nobody is mailed twice.${refused.map((line) => `\n  ${line}`).join("")}`,
      );
    }
    if (refused.length > 0) {
      throw new PendingError(
        `${lines.join("\n")}\nNot sent, the mail server said (run it again to try them again):\n${refused.map((line) => `  ${line}`).join("\n")}`,
      );
    }
    return lines.join("\n");
  },
});
