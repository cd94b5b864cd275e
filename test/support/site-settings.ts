import { readEnv, siteSettings } from "../../config/env";

/** The site the tests' waitlists serve: the defaults of SITE_URL and CONTACT_EMAIL (config/variables.ts). */
export const testSite = (({ siteUrl, contactEmail }) => ({ siteUrl, contactEmail }))(siteSettings(readEnv({})));
