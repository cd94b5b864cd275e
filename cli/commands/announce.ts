import { mailConfig, waitlistConfig } from "../../config/env";
import { projectFolders } from "../../config/folders";
import { announcementAudience, announcementLane } from "../../waitlist/launch/announcement";
import { mailEach } from "../../waitlist/launch/mail-run";
import { createMailer } from "../../waitlist/mail/mailer";
import { policyChangeMessage, type AnnouncedChange } from "../../waitlist/mail/policy-change-message";
import { createSender } from "../../waitlist/mail/sender";
import { isoDate, readPolicySources, policyRecords, type PolicyRecord } from "../../waitlist/policies";
import { command } from "../command";
import { PendingError, UsageError } from "../errors";
import { announcedWords, leftOutWords, stopSignalsWhile } from "../launch-words";
import { linkSecretOf, paceOf } from "../open-store";
import { plural, postalAddressShown, requirePostalAddress } from "../sender";

/*
 * npm run waitlist -- announce-policy-change: the e-mail the Privacy Policy promises when a significant change is
 * posted, sent by a founder after the deploy that publishes it. What it says is the policy's own record, the newest
 * entries under "What changed"; whom, and how each goes, is waitlist/launch/announcement.ts's, through the one sender.
 * A whole-list command: it reads every signup once.
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
    const { audience, leftOut } = announcementAudience(await store.all());
    const { siteUrl, contactEmail } = waitlistConfig(env);
    const postalAddress = postalAddressShown(env);
    const what = changes.map((change) => `${change.title} (${change.date})`).join(" and ");
    const people = plural(audience.length, "confirmed signup");
    const skipped = leftOutWords(leftOut, "announcement");
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
      const skipping = skipped.map((line) => `${line}\n`).join("");
      return `Would send the change of the ${what} to ${people} (via ${via}), each with their own leave link, except those an earlier run sent it and those whose mailbox is held after a bounce or a spam complaint:\n${skipping}\nSubject: ${sample.subject}\n\n${text.trimEnd()}`;
    }
    const linkSecret = await linkSecretOf(opened, env);
    const mailer = createMailer(mailConfig(env));
    const pace = paceOf(opened, env);
    const sender = createSender({ store, mailer, pace, secret: linkSecret });
    const mail = { siteUrl, contactEmail, linkSecret, changes, postalAddress };
    const { lane, counts } = announcementLane(store, mail, { again: Boolean(options.again) });
    const outcome = await stopSignalsWhile((stopped) =>
      mailEach(sender, lane, audience, { pace, stopped }).finally(() => mailer.close()),
    );
    const lines = [
      `Sent the change of the ${what} to ${outcome.sent} of ${people} (via ${mailer.destination}).`,
      ...announcedWords(outcome, counts.before, skipped),
    ];
    const failed = outcome.failed.map((line) => `\n  ${line}`).join("");
    if (outcome.halted || outcome.stopped) {
      const why = outcome.halted ?? "you stopped it";
      throw new PendingError(
        `${lines.join("\n")}\nStopped: ${why}. Run it again then: nobody is mailed twice.${failed}`,
      );
    }
    if (failed !== "") {
      throw new PendingError(
        `${lines.join("\n")}\nNot sent, the mail server said (run it again to try them again):${failed}`,
      );
    }
    return lines.join("\n");
  },
});
