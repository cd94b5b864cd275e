// The waitlist form's endpoint on Netlify: POST / (the form's contract), answered like npm start's.
// https://docs.netlify.com/build/functions/get-started/
import type { Config, Context } from "@netlify/functions";
import { serveEndpoint } from "../serve-endpoint";

export default (request: Request, context: Context) => serveEndpoint("waitlist-signup", "signup", request, context);

export const config: Config = {
  // GET / stays the static page: only the form's POST reaches this function.
  path: "/",
  method: "POST",
  // Netlify's own limit, per client IP across every instance; WAITLIST_RATE_LIMIT's default (config/env.ts).
  rateLimit: { windowLimit: 5, windowSize: 60, aggregateBy: ["ip", "domain"] },
};
