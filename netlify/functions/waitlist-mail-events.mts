// The mail providers' bounces and complaints on Netlify: one route per provider, each off (404) until its setting is
// set (SES_SNS_TOPIC_ARN, RESEND_WEBHOOK_SECRET, POSTMARK_WEBHOOK_AUTH), answered like npm start's.
// https://docs.netlify.com/build/functions/get-started/
import type { Config, Context } from "@netlify/functions";
import { serveEndpoint } from "../serve-endpoint";

export default (request: Request, context: Context) =>
  serveEndpoint("waitlist-mail-events", "mail-events", request, context);

export const config: Config = {
  // routes.ts's mailEventPaths, written out: Netlify reads a function's config without running its imports.
  path: ["/waitlist/mail-events/ses", "/waitlist/mail-events/resend", "/waitlist/mail-events/postmark"],
  // The providers post; anything else is the site's 404.
  method: "POST",
};
