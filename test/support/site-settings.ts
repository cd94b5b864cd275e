import { readEnv, siteSettings } from "../../config/env";
import { projectFolders } from "../../config/folders";
import { readPolicySource, policyInForce } from "../../waitlist/policies";
import { site } from "../../config/site";

/** The site the tests' waitlists serve: the defaults of SITE_URL and CONTACT_EMAIL (config/variables.ts). */
export const testSite = (({ siteUrl, contactEmail }) => ({ siteUrl, contactEmail }))(siteSettings(readEnv({})));

/** The Privacy Policy in force, as the servers read it from content/legal. */
export const testPolicy = policyInForce(readPolicySource(projectFolders.legal, site.legalPages.privacyPolicy.slug));
