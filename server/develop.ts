import type { IncomingMessage, ServerResponse } from "node:http";
import { readConfig } from "./config";
import { readMailConfig } from "./mailer";
import { receiverMiddleware, requestLog, isReceiverRequest } from "./http";
import { openWaitlist } from "./waitlist";

type Next = (error?: unknown) => void;

/**
 * The receiver inside `gatsby develop` (developMiddleware in gatsby-config):
 * the same contract as npm start, storing with source "develop" and sending
 * the same confirmations. The store is opened on the first signup, so a build
 * never touches it.
 */
export function developWaitlistMiddleware(env: NodeJS.ProcessEnv = process.env, write?: (line: string) => void) {
  let handler: ReturnType<typeof receiverMiddleware> | undefined;
  const log = requestLog(write);
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    if (!isReceiverRequest(req)) {
      next();
      return;
    }
    if (!handler) {
      const config = readConfig(env);
      const { receiver, confirmations } = openWaitlist({
        dbFile: config.dbFile,
        mail: readMailConfig(env),
        source: "develop",
        rateLimitPerMinute: config.rateLimitPerMinute,
        leaseMs: config.confirmationLeaseMs,
        sweepMs: config.confirmationSweepMs,
      });
      // Confirmations still owed (a failure, or a server that stopped while sending) go out on a schedule here too.
      void confirmations.start();
      handler = receiverMiddleware(receiver);
    }
    const run = handler;
    log(req, res, () => run(req, res, next));
  };
}
