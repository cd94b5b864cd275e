// The leave link in every confirmation e-mail on Netlify: its page, its button and mail clients' one-click POST.
// https://docs.netlify.com/build/functions/get-started/
import type { Config, Context } from "@netlify/functions";
import { serveEndpoint } from "../serve-endpoint";

export default (request: Request, context: Context) => serveEndpoint("waitlist-leave", "leave", request, context);

export const config: Config = {
  path: ["/waitlist/leave", "/waitlist/leave/"],
  // WAITLIST_LINK_RATE_LIMIT's default (config/env.ts): mail providers send one-click POSTs from few addresses.
  rateLimit: { windowLimit: 60, windowSize: 60, aggregateBy: ["ip", "domain"] },
};
