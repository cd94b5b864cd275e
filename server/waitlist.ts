import { createConfirmations, type ConfirmationOptions } from "../waitlist/confirmations";
import { createLeave, leaveLimiter } from "../waitlist/leave";
import { newLeaveSecret } from "../waitlist/leave-token";
import { createMailer, type MailConfig } from "../waitlist/mailer";
import { createReceiver, type ReceiverOptions } from "../waitlist/receiver";
import { WaitlistStore } from "../waitlist/sqlite-store";

export interface WaitlistOptions
  extends
    Pick<ConfirmationOptions, "retryDelaysMs" | "leaseMs" | "sweepMs" | "log">,
    Pick<ReceiverOptions, "source" | "rateLimitPerMinute" | "warn"> {
  /** The SQLite file. */
  dbFile: string;
  mail: MailConfig;
  /** WAITLIST_SECRET; without it, the one the store made and keeps. */
  leaveSecret?: string;
  /** Requests to the leave link per client IP per minute. */
  leaveRateLimitPerMinute?: number;
}

/** What leave links are signed with: WAITLIST_SECRET when set, else the one the store made and keeps. */
export function signingSecret(store: WaitlistStore, configured: string | undefined): string {
  return configured ?? store.leaveSecret(newLeaveSecret);
}

/**
 * The waitlist as every server runs it (npm start, gatsby develop, the test
 * harness): the SQLite store, the receiver, a confirmation e-mail sent after
 * each new signup (a server starts the confirmations' schedule with
 * confirmations.start()), and the leave link that e-mail carries.
 */
export function openWaitlist({
  dbFile,
  mail,
  source,
  rateLimitPerMinute,
  warn,
  retryDelaysMs,
  leaseMs,
  sweepMs,
  log,
  leaveSecret,
  leaveRateLimitPerMinute = 60,
}: WaitlistOptions) {
  const store = new WaitlistStore(dbFile);
  const secret = signingSecret(store, leaveSecret);
  const mailer = createMailer(mail);
  const confirmations = createConfirmations({
    store,
    mailer,
    leaveSecret: secret,
    retryDelaysMs,
    leaseMs,
    sweepMs,
    log,
  });
  const receiver = createReceiver({ store, source, rateLimitPerMinute, onNewSignup: confirmations.sendSoon, warn });
  const leave = createLeave({
    secret,
    remove: (address, how) => void store.remove(address.key, how),
    limiter: leaveLimiter(leaveRateLimitPerMinute),
    warn,
  });
  return { store, mailer, confirmations, receiver, leave };
}
