// The confirm link in every confirmation e-mail on Netlify (double opt-in): its page, and its button.
// https://docs.netlify.com/build/functions/get-started/
import type { Config, Context } from "@netlify/functions";
import { serveEndpoint } from "../serve-endpoint";

export default (request: Request, context: Context) => serveEndpoint("waitlist-confirm", "confirm", request, context);

export const config: Config = {
  path: ["/waitlist/confirm", "/waitlist/confirm/"],
  // WAITLIST_LINK_RATE_LIMIT's default (config/env.ts), which the links in the e-mail share.
  rateLimit: { windowLimit: 60, windowSize: 60, aggregateBy: ["ip", "domain"] },
};
