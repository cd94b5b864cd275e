import React, { useEffect } from "react";
import type { PageProps } from "gatsby";
import { site } from "../site";
import { Layout } from "../components/layout";
import { Seo } from "../components/seo";
import { Hero } from "../components/hero";
import { Features } from "../components/features";
import { WaitlistSection } from "../components/waitlist-section";
import { isScrollIntent } from "../lib/go-to-section";
import { scrollToSection } from "../lib/scroll";

export default function IndexPage({ location }: PageProps) {
  // A "Join the Waitlist" from another page arrives as navigation state:
  // scroll about 200 ms after this page is shown (spec section 2).
  const intent = isScrollIntent(location.state) ? location.state.scrollTo : null;
  useEffect(() => {
    if (!intent) return;
    const timer = setTimeout(() => scrollToSection(intent), site.scroll.afterNavigationDelayMs);
    return () => clearTimeout(timer);
  }, [intent, location.key]);

  return (
    <Layout>
      <Seo path={site.routes.home} />
      <Hero />
      <Features />
      <WaitlistSection />
    </Layout>
  );
}
