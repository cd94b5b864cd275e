/*
 * What a deployment tells the waitlist about the site it serves. The
 * adapters (server/ for npm start and gatsby develop, netlify/ for the
 * functions, cli/ for the founders' commands) each read the environment once
 * (config/env.ts) and pass this in: nothing under waitlist/ reads the
 * environment itself.
 */
export interface WaitlistSite {
  /** The canonical origin (SITE_URL): the links in e-mails, and the Origin that counts as this site. */
  siteUrl: string;
  /** Where pages and e-mails tell people to write (CONTACT_EMAIL). */
  contactEmail: string;
}
