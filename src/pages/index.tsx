import React, { useEffect, useRef } from "react";
import type { HeadFC, PageProps } from "gatsby";
import { site } from "../../config/site";
import { Layout } from "../components/layout";
import { Seo } from "../components/seo";
import type { SiteSettings } from "../components/use-site-settings";
import { Hero } from "../components/hero";
import { Features } from "../components/features";
import { WaitlistSection } from "../components/waitlist-section";
import { isScrollIntent } from "../lib/section-links";
import { focusSection, scrollToSection } from "../lib/scroll";
import { useIsomorphicLayoutEffect } from "../components/use-isomorphic-layout-effect";

/** Who runs the site and what it is, for search engines (schema.org JSON-LD). */
const structuredData = ({ siteUrl, contactEmail }: SiteSettings) => ({
  "@context": "https://schema.org",
  "@graph": [
    {
      "@type": "Organization",
      "@id": `${siteUrl}/#organization`,
      name: site.name,
      url: `${siteUrl}/`,
      logo: `${siteUrl}/apple-touch-icon.png`,
      email: contactEmail,
      slogan: site.tagline,
    },
    {
      "@type": "WebSite",
      "@id": `${siteUrl}/#website`,
      name: site.name,
      url: `${siteUrl}/`,
      description: site.description,
      inLanguage: "en",
      publisher: { "@id": `${siteUrl}/#organization` },
    },
  ],
});

export default function IndexPage({ location }: PageProps) {
  // A "Join the Waitlist" from another page arrives as navigation state:
  // scroll about 200 ms after this page is shown (spec section 2). Without
  // JavaScript the same link is a plain /#waitlist and the browser scrolls.
  // The 200 ms count from the commit that puts this page in the document (a
  // layout effect, in the same task), not from the passive effects after the
  // next frame, which a busy phone runs hundreds of milliseconds later.
  const intent = isScrollIntent(location.state) ? location.state.scrollTo : null;
  const scrolled = useRef(false);
  useIsomorphicLayoutEffect(() => {
    if (!intent) return;
    scrolled.current = false;
    const timer = setTimeout(() => {
      scrolled.current = true;
      scrollToSection(intent);
    }, site.scroll.afterNavigationDelayMs);
    return () => clearTimeout(timer);
  }, [intent, location.key]);
  // Gatsby's router focuses its page wrapper after a navigation, in the passive effects of the same commit, which a
  // busy phone runs after the 200 ms: the section takes the focus back once they have all run (a microtask), so that
  // keyboard and screen-reader users go on from where the link took them.
  useEffect(() => {
    if (!intent) return;
    queueMicrotask(() => {
      if (scrolled.current) focusSection(intent);
    });
  }, [intent, location.key]);

  return (
    <Layout onLanding>
      <Hero />
      <Features />
      <WaitlistSection />
    </Layout>
  );
}

export const Head: HeadFC = () => <Seo path={site.routes.home} structuredData={structuredData} />;
