import type { IncomingMessage, ServerResponse } from "node:http";
import { readEnv, serverConfig, type EnvSource } from "../config/env";
import { mailConfig } from "../waitlist/mailer";
import { requestLog, waitlistEndpoint, waitlistMiddleware } from "./http";
import { openWaitlist } from "./waitlist";

type Next = (error?: unknown) => void;

/**
 * The waitlist inside `gatsby develop` (developMiddleware in gatsby-config):
 * the same receiver and leave link as npm start, storing with source
 * "develop" and sending the same confirmations. The store is opened on the
 * first request to either, so a build never touches it.
 */
export function developWaitlistMiddleware(source?: EnvSource, write?: (line: string) => void) {
  let handler: ReturnType<typeof waitlistMiddleware> | undefined;
  const log = requestLog(write);
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    if (!waitlistEndpoint(req)) {
      next();
      return;
    }
    if (!handler) {
      const env = readEnv(source);
      const config = serverConfig(env);
      const { receiver, leave, confirmations } = openWaitlist({
        dbFile: config.dbFile,
        mail: mailConfig(env),
        source: "develop",
        rateLimitPerMinute: config.rateLimitPerMinute,
        leaveRateLimitPerMinute: config.leaveRateLimitPerMinute,
        leaveSecret: config.leaveSecret,
        leaseMs: config.confirmationLeaseMs,
        sweepMs: config.confirmationSweepMs,
      });
      // Confirmations still owed (a failure, or a server that stopped while sending) go out on a schedule here too.
      void confirmations.start();
      handler = waitlistMiddleware({ receiver, leave });
    }
    const run = handler;
    log(req, res, () => run(req, res, next));
  };
}
