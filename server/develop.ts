import type { IncomingMessage, ServerResponse } from "node:http";
import { readEnv, type EnvSource } from "../config/env";
import { requestLog, waitlistEndpoint, waitlistMiddleware } from "./waitlist-middleware";
import { openWaitlist, settingsFromEnv, startSchedules } from "./start-server";

type Next = (error?: unknown) => void;

/**
 * The waitlist inside `gatsby develop` (developMiddleware in gatsby-config):
 * the same signup endpoint and leave link as npm start, storing with source
 * "develop", sending the same confirmations and running the same hourly
 * retention pass. The store is opened on the first request to either, so a
 * build never touches it.
 */
export function developWaitlistMiddleware(source?: EnvSource, write?: (line: string) => void) {
  let handler: Promise<ReturnType<typeof waitlistMiddleware>> | undefined;
  const log = requestLog(write);
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    if (!waitlistEndpoint(req)) {
      next();
      return;
    }
    handler ??= (async () => {
      const env = readEnv(source);
      // Its links keep SITE_URL's default when it is not set: gatsby develop's port is Gatsby's, not known here.
      const settings = { ...settingsFromEnv(env, "develop").waitlist, siteUrl: env.SITE_URL };
      const waitlist = await openWaitlist(settings);
      // Confirmations still owed (a failure, or a server that stopped while sending) go out on a schedule here too,
      // and signups never confirmed go when their days are over, as under npm start. Both timers are unref()ed:
      // they end with gatsby develop.
      startSchedules(waitlist, settings);
      return waitlistMiddleware(waitlist);
    })();
    handler.then((run) => log(req, res, () => run(req, res, next)), next);
  };
}
