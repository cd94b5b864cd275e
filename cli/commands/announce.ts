import { mailConfig, waitlistConfig } from "../../config/env";
import { projectFolders } from "../../config/folders";
import { isoDate, readPolicySources } from "../../config/legal-rules";
import { createMailer } from "../../waitlist/mail/mailer";
import { policyChangeMessage, type AnnouncedChange } from "../../waitlist/mail/policy-change-message";
import { policyRecords, type PolicyRecord } from "../../waitlist/policies";
import { command } from "../command";
import { PendingError, UsageError } from "../errors";
import { linkSecretOf } from "../open-store";

/*
 * The Privacy Policy promises that a significant change is e-mailed to the waitlist members who confirmed, when it
 * is posted: this is that e-mail, one to each, sent by a founder after the deploy that publishes the change. What it
 * says is the policy's own record, the newest entries under "What changed". A whole-list command: it reads every
 * signup once and sends one message per confirmed signup, one after another.
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
    "announce-policy-change [--policy SLUG] [--date YYYY-MM-DD] [--dry-run]",
    "e-mail every confirmed signup a policy's change: each policy whose newest",
    'entry under "What changed" is dated today, UTC (or --date), or only --policy;',
    "with its summary, a link to the policy and their own leave link",
  ],
  check: ({ date, policy }) => {
    const day = date ?? today();
    if (isoDate(day) !== day) throw new UsageError(`--date must be a day written as YYYY-MM-DD (got "${day}").`);
    return { date: day, policy };
  },
  run: async ({ input, options, env, opened }) => {
    const changes = changesToAnnounce(policyRecords(readPolicySources(projectFolders.legal)), input);
    const confirmed = (await opened.store.all()).filter((row) => row.confirmedAt !== null);
    const { siteUrl, contactEmail } = waitlistConfig(env);
    const mailer = createMailer(mailConfig(env));
    const what = changes.map((change) => `${change.title} (${change.date})`).join(" and ");
    const people = `${confirmed.length} confirmed signup${confirmed.length === 1 ? "" : "s"}`;
    try {
      if (options["dry-run"]) {
        // A dry run writes nothing, not even the store's secret: the sample's leave link is a stand-in.
        const sample = policyChangeMessage("someone@example.com", {
          emailKey: "someone@example.com",
          createdAt: new Date(0).toISOString(),
          linkSecret: "a stand-in secret for the dry run's sample",
          siteUrl,
          contactEmail,
          changes,
        });
        const text = sample.text.replace(/\S+\/waitlist\/leave\?token=\S+/, "<their own leave link>");
        return `Would send the change of the ${what} to ${people} (via ${mailer.destination}), each with their own leave link:\n\nSubject: ${sample.subject}\n\n${text.trimEnd()}`;
      }
      const linkSecret = await linkSecretOf(opened, env);
      const refused: string[] = [];
      for (const row of confirmed) {
        const message = policyChangeMessage(row.email, {
          emailKey: row.emailKey,
          createdAt: row.createdAt,
          linkSecret,
          siteUrl,
          contactEmail,
          changes,
        });
        await mailer.send(message).catch((error: Error) => {
          refused.push(`${row.email}: ${error.message.split("\n")[0]}`);
        });
      }
      const sent = `Sent the change of the ${what} to ${confirmed.length - refused.length} of ${people} (via ${mailer.destination}).`;
      if (refused.length > 0) {
        throw new PendingError(
          `${sent}\nNot sent, the mail server said:\n${refused.map((line) => `  ${line}`).join("\n")}`,
        );
      }
      return sent;
    } finally {
      mailer.close();
    }
  },
});
