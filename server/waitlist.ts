import { createConfirmations, type ConfirmationOptions } from "./confirmations";
import { createMailer, type MailConfig } from "./mailer";
import { createReceiver, type ReceiverOptions } from "./receiver";
import { WaitlistStore } from "./store";

export interface WaitlistOptions
  extends
    Pick<ConfirmationOptions, "retryDelaysMs" | "leaseMs" | "sweepMs" | "log">,
    Pick<ReceiverOptions, "source" | "rateLimitPerMinute" | "warn"> {
  /** The SQLite file. */
  dbFile: string;
  mail: MailConfig;
}

/**
 * The waitlist as every server runs it (npm start, gatsby develop, the test
 * harness): the SQLite store, the receiver, and a confirmation e-mail sent
 * after each new signup (a server starts the confirmations' schedule with
 * confirmations.start()).
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
}: WaitlistOptions) {
  const store = new WaitlistStore(dbFile);
  const mailer = createMailer(mail);
  const confirmations = createConfirmations({ store, mailer, retryDelaysMs, leaseMs, sweepMs, log });
  const receiver = createReceiver({ store, source, rateLimitPerMinute, onNewSignup: confirmations.sendSoon, warn });
  return { store, mailer, confirmations, receiver };
}
