import { maskEmail } from "../email-address";
import { mailboxCap, retryDelayMs } from "../signup-life/rules";
import type { OwedConfirmation } from "../signup-life/types";
import type { WaitlistSite } from "../site-settings";
import type { ConfirmationQueue, WaitlistStore } from "../stores/store";
import { confirmationMessage } from "./confirmation-message";
import { mailboxCounters, mailDay } from "./mailbox";
import type { Lane } from "./sender";

/** What a confirmation's lane needs: the store's transitions, the message's settings, the cap and the schedule. */
export interface ConfirmationLaneOptions extends WaitlistSite {
  store: Pick<
    WaitlistStore & ConfirmationQueue,
    "claimConfirmation" | "countMailboxMail" | "markConfirmationSent" | "failConfirmation" | "releaseConfirmation"
  >;
  linkSecret: string;
  leaseMs: number;
  mailboxDailyMails: number;
  retryDelaysMs: readonly number[];
  log: (line: string) => void;
  clock: () => Date;
}

/**
 * A confirmation, as the sender takes it: held in the store while it runs, so that no two senders send it (the
 * signup's own sender holds it from its record's making); recorded through the signup's transitions. A refusal for
 * good, or a mailbox held after a bounce or a spam complaint (whichever signup of it this is: the visitor was answered
 * as for any signup), is failed, not capped: a repeat signup does not ask again, and the mailbox's day is not spent.
 */
export function confirmationLane(
  {
    store,
    linkSecret,
    siteUrl,
    contactEmail,
    leaseMs,
    mailboxDailyMails,
    retryDelaysMs,
    log,
    clock,
  }: ConfirmationLaneOptions,
  claimed: boolean,
): Lane<OwedConfirmation> {
  return {
    kind: "confirmation",
    async claim(owed) {
      // A record made held for its signup's sender holds for the lease from its making: trusted only in the lease's
      // first half. An attempt that waited longer for its slot (a burst far past a slow provider's rate, on npm start)
      // claims afresh, for once the hold lapsed another sender (a second server, resend-pending) may have taken it.
      const fresh = claimed && clock().getTime() - Date.parse(owed.createdAt) < leaseMs / 2;
      return (fresh ? 1 : await store.claimConfirmation(owed.emailKey, { now: clock(), leaseMs })) ?? "not-ours";
    },
    // Each asking counts once against its mailbox's day, at its first attempt (a retry is the same message). Past the
    // cap (signup-life's mailboxCap) it is not sent and not retried: the visitor was answered as for any signup, and
    // the founders see why. A repeat signup of the address a day later asks again.
    async gate(owed, attempt) {
      if (attempt !== 1) return undefined;
      const { mailbox, own } = mailboxCounters(owed.emailKey, linkSecret);
      const day = mailDay(clock());
      const cap = mailboxCap(mailboxDailyMails);
      const setApart =
        cap.keepsOwnCount && own !== undefined && cap.setApartFor(await store.countMailboxMail(own, day));
      if (setApart || !cap.over(await store.countMailboxMail(mailbox, day))) return undefined;
      return `not sent: ${mailboxDailyMails} confirmation e-mails went to this mailbox today, however spelled`;
    },
    message: (owed) =>
      confirmationMessage(owed.email, {
        // Each asking is a message of its own: the signup's, or a later one for a signup from before the confirm step.
        seed: `${owed.emailKey} ${owed.askedSince ?? owed.createdAt}`,
        createdAt: owed.createdAt,
        linkSecret,
        siteUrl,
        contactEmail,
      }),
    sent: (owed) => store.markConfirmationSent(owed.emailKey, clock()),
    async refused(owed, reason, by) {
      await store.failConfirmation(owed.emailKey, reason, clock(), { capped: by === "gate" });
      log(
        `confirmation to ${maskEmail(owed.email)} ${by === "recipient" ? `refused for good (${reason}); no more attempts` : reason}`,
      );
    },
    async retry(owed, reason, attempt) {
      const delay = retryDelayMs(attempt, retryDelaysMs);
      await store.releaseConfirmation(owed.emailKey, reason, new Date(clock().getTime() + delay));
      log(`confirmation to ${maskEmail(owed.email)} failed (${reason}); retrying in ${delay / 1000} s`);
    },
    held: (owed, reason, due, counted) =>
      store.releaseConfirmation(owed.emailKey, reason, due, { uncounted: !counted }),
    // It may have arrived: sent once more on the retry schedule, with the same Message-ID, which a mailbox that has
    // it already shows once.
    async unknown(owed, reason) {
      const delay = retryDelayMs(1, retryDelaysMs);
      await store.releaseConfirmation(owed.emailKey, reason, new Date(clock().getTime() + delay));
      log(`confirmation to ${maskEmail(owed.email)} may have gone (${reason}); sent again in ${delay / 1000} s`);
    },
  };
}
