import React from "react";
import { Helmet } from "react-helmet";
import { site } from "../../config/site";
import { useSiteSettings } from "./use-site-settings";

/**
 * The developer portal's site-verification meta tag, added by react-helmet
 * (the design card) and prerendered by gatsby-ssr.tsx. Only the legal pages
 * render it, so react-helmet ships only with them and never to the landing page.
 */
export function SiteVerification() {
  const { siteVerificationToken } = useSiteSettings();
  return (
    <Helmet>
      <meta name={site.siteVerificationMetaName} content={siteVerificationToken} />
    </Helmet>
  );
}
