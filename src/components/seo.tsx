import React, { type ReactNode } from "react";
import { Helmet } from "react-helmet";
import { site } from "../site";

interface SeoProps {
  /** Page title; the brand is appended. Omit on the landing page. */
  title?: string;
  description?: string;
  /** Route of the page, e.g. "/privacy-policy/". */
  path: string;
  /** Adds the developer portal's site-verification tag (legal pages only). */
  siteVerification?: boolean;
  children?: ReactNode;
}

/** Every head tag of every page comes from here (react-helmet). */
export function Seo({ title, description = site.description, path, siteVerification = false, children }: SeoProps) {
  const fullTitle = title ? `${title} | ${site.name}` : site.title;
  return (
    <Helmet htmlAttributes={{ lang: "en" }}>
      <title>{fullTitle}</title>
      <meta name="description" content={description} />
      <link rel="canonical" href={`${site.url}${path}`} />
      <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
      {siteVerification && <meta name={site.siteVerification.metaName} content={site.siteVerification.token} />}
      {children}
    </Helmet>
  );
}
