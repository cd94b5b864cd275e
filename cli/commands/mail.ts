import { mailConfig, waitlistConfig } from "../../config/env";
import { maskEmail } from "../../waitlist/email-address";
import { createConfirmations } from "../../waitlist/mail/confirmations";
import { createMailer } from "../../waitlist/mail/mailer";
import { neverAsked } from "../../waitlist/signup-life/rules";
import { command } from "../command";
import { PendingError, UsageError } from "../errors";
import { linkSecretOf, paceOf } from "../open-store";

/* The confirmation e-mails, from the founder's shell: what is owed now, and asking the signups from before the confirm step. */

export const resendPending = command({
  name: "resend-pending",
  usage: ["resend-pending", "send the confirmation e-mails still owed now, through SMTP_URL"],
  /*
   * Only through a mail server. Written to this machine's outbox instead, a confirmation would reach nobody, yet be
   * recorded as sent, never sent again by the site, and the person pruned unconfirmed 30 days later; and its copy
   * would sit where a leave on the site cannot delete it. A founder needs the mail to arrive, so the command says
   * what to set; the running site sends what is owed on its own (npm start without SMTP_URL writes its own outbox).
   */
  check: (_options, env) => {
    if (!mailConfig(env()).smtpUrl) {
      throw new UsageError(
        "Nothing sent: set SMTP_URL to the mail server the site sends through. Without it a confirmation would only be written to a file on this machine, reaching nobody, yet be recorded as sent; the running site sends what is owed on its own.",
      );
    }
  },
  // One attempt at every owed confirmation, through this machine's SMTP_URL, sealed as the site seals them.
  run: async ({ env, opened }) => {
    const { store, netlify } = opened;
    const settings = waitlistConfig(env);
    const linkSecret = await linkSecretOf(opened, env);
    const mailer = createMailer(mailConfig(env));
    try {
      const { sent, held, pending, refused, stopped } = await createConfirmations({
        store,
        mailer,
        linkSecret,
        siteUrl: settings.siteUrl,
        contactEmail: settings.contactEmail,
        // The site's cap, not the default: the founder's shell and the site read the same setting.
        mailboxDailyMails: settings.mailboxDailyMails,
        // Within the provider's limits together with the running site's own senders.
        pace: paceOf(opened, env),
        log: () => {},
      }).resendPending();
      // On Netlify the ledger the founders' commands read is the sweep's to keep: bring it up to date now.
      await netlify?.store.fold();
      const lines = [
        `Sent ${sent} confirmation${sent === 1 ? "" : "s"} (via ${mailer.destination}); ${pending.length} still pending.`,
      ];
      if (held > 0) lines.push(`${held} being sent by the running site right now.`);
      // Refused for good: marked failed, never retried, listed for the operator; not a reason to stay red.
      // Shortened, as the Privacy Policy promises of a failed mail's address; the reason is shortened already.
      for (const { email, reason } of refused)
        lines.push(`Refused for good, not retried: ${maskEmail(email)}: ${reason}`);
      if (stopped) {
        throw new PendingError(
          `${lines.join("\n")}\nStopped: the mail provider asked to wait (${stopped.reason}) until ${stopped.until}; the site sends the rest then, or run resend-pending again.`,
        );
      }
      if (pending.length > 0)
        throw new PendingError(`${lines.join("\n")}\nThe mail server said: ${pending[0]!.reason}`);
      return lines.join("\n");
    } finally {
      mailer.close();
    }
  },
});

export const askToConfirm = command({
  name: "ask-to-confirm",
  usage: ["ask-to-confirm", "send the signups from before the confirm step an e-mail to confirm"],
  /*
   * Every signup from before the confirm step that never confirmed is owed a
   * confirmation e-mail with the confirm link, sent by the running site (or
   * resend-pending), and pruned if it does not confirm in time.
   */
  run: async ({ opened: { store } }) => {
    const now = new Date();
    let asked = 0;
    for (const row of await store.all()) {
      if (neverAsked(row) && (await store.askToConfirm(row.emailKey, now))) asked++;
    }
    return `Asked ${asked} signup${asked === 1 ? "" : "s"} from before the confirm step to confirm: each is owed an e-mail with the link, sent by the running site's next sweep or by resend-pending.`;
  },
});
