import React from "react";
import { site } from "../../config/site";
import { useSiteSettings, type SiteSettings } from "./use-site-settings";

interface SeoProps {
  /** Page title; the brand is appended. Omit on the landing page. */
  title?: string;
  description?: string;
  /** Route of the page, e.g. "/privacy-policy/". */
  path: string;
  /** Keeps the page out of search results (the 404 page). */
  noindex?: boolean;
  /** JSON-LD for search engines, from the build's settings. */
  structuredData?: (settings: SiteSettings) => object;
}

/**
 * The head tags of every page, for Gatsby's Head API (`export const Head`):
 * prerendered into the HTML and kept current on client-side navigation by
 * Gatsby's own runtime, so no head library ships to the landing page. The
 * one exception is the legal pages' verification tag (site-verification.tsx).
 */
export function Seo({ title, description = site.description, path, noindex = false, structuredData }: SeoProps) {
  const settings = useSiteSettings();
  const fullTitle = title ? `${title} | ${site.name}` : site.title;
  const url = `${settings.siteUrl}${path}`;
  const image = `${settings.siteUrl}${site.socialImage.path}`;
  return (
    <>
      <html lang="en" />
      <title>{fullTitle}</title>
      <meta name="description" content={description} />
      <link rel="canonical" href={url} />
      {noindex && <meta name="robots" content="noindex" />}
      <meta name="theme-color" content={site.colors.heroBg} />
      <link rel="icon" href={settings.favicon} type="image/svg+xml" />
      <link rel="icon" href="/favicon.png" type="image/png" sizes="32x32" />
      <link rel="apple-touch-icon" href="/apple-touch-icon.png" />
      <meta property="og:type" content="website" />
      <meta property="og:site_name" content={site.name} />
      <meta property="og:locale" content="en_US" />
      <meta property="og:title" content={fullTitle} />
      <meta property="og:description" content={description} />
      <meta property="og:url" content={url} />
      <meta property="og:image" content={image} />
      <meta property="og:image:width" content={String(site.socialImage.width)} />
      <meta property="og:image:height" content={String(site.socialImage.height)} />
      <meta property="og:image:alt" content={site.socialImage.alt} />
      <meta name="twitter:card" content="summary_large_image" />
      <meta name="twitter:title" content={fullTitle} />
      <meta name="twitter:description" content={description} />
      <meta name="twitter:image" content={image} />
      <meta name="twitter:image:alt" content={site.socialImage.alt} />
      {structuredData && (
        <script
          type="application/ld+json"
          // "<" escaped so no string in the data can close the script element early.
          dangerouslySetInnerHTML={{ __html: JSON.stringify(structuredData(settings)).replace(/</g, "\\u003c") }}
        />
      )}
    </>
  );
}
