import { site } from "../config/site";

/*
 * Where the waitlist answers, on every deployment: npm start and gatsby develop route by these
 * (server/waitlist-middleware.ts), and on Netlify each is a function's path (netlify/functions/).
 */

/** The form's contract: it posts to the site root (GET / stays the landing page). */
export const signupPath = site.waitlist.endpoint;
/** The confirm link in every confirmation e-mail (double opt-in). */
export const confirmPath = "/waitlist/confirm";
/** The leave link in every e-mail. */
export const leavePath = "/waitlist/leave";

/** Requests a link's endpoint answers: its path (/waitlist/leave), with or without a trailing slash. */
export const isLinkPath = (path: string, linkPath: string) => path === linkPath || path === `${linkPath}/`;

/** Where each mail provider posts its bounces and complaints (endpoints/mail-events.ts), by provider. */
export const mailEventPaths = {
  ses: "/waitlist/mail-events/ses",
  resend: "/waitlist/mail-events/resend",
  postmark: "/waitlist/mail-events/postmark",
} as const;

/** The provider whose events `path` takes, with or without a trailing slash; undefined for any other path. */
export const mailEventProvider = (path: string) =>
  (Object.keys(mailEventPaths) as (keyof typeof mailEventPaths)[]).find((provider) =>
    isLinkPath(path, mailEventPaths[provider]),
  );
