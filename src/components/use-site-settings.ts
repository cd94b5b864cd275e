import { graphql, useStaticQuery } from "gatsby";

/** What the build's environment decides for the pages: gatsby-config.ts puts it in siteMetadata. */
export interface SiteSettings {
  /** Canonical origin (SITE_URL), no trailing slash. */
  siteUrl: string;
  contactEmail: string;
  /** The developer portal's verification token (TIKTOK_SITE_VERIFICATION), or a placeholder. */
  siteVerificationToken: string;
  /** Who controls the personal information the site keeps (CONTROLLER_NAME), and its postal address. */
  controllerName: string;
  controllerAddress: string;
  /** Who hosts the site and keeps the waitlist (HOSTING_PROVIDER; Netlify on a build there), or a placeholder. */
  hostingProvider: string;
  /** The favicon as a data: URI: one request fewer on every first visit. */
  favicon: string;
}

/** The build's settings, through Gatsby's own channel for site data (siteMetadata and a static query). */
export function useSiteSettings(): SiteSettings {
  const data = useStaticQuery<Queries.SiteSettingsQuery>(graphql`
    query SiteSettings {
      site {
        siteMetadata {
          siteUrl
          contactEmail
          siteVerificationToken
          controllerName
          controllerAddress
          hostingProvider
          favicon
        }
      }
    }
  `);
  const settings = data.site?.siteMetadata;
  if (!settings) throw new Error("siteMetadata is missing: gatsby-config.ts sets it.");
  return settings;
}
