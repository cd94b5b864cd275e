// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-browser/
import type { GatsbyBrowser } from "gatsby";
import { isScrollIntent } from "./src/lib/section-links";
import { placeNewPage } from "./src/lib/scroll";
import "./src/styles/global.css";

/**
 * Who scrolls when the location changes. Gatsby would scroll on every change,
 * undoing what the browser already did for the section links (a fragment
 * navigation, leaving scroll-margin-top) and for Back and Forward between
 * them (the browser's own scroll restoration). So within one page, and on the
 * first render, the browser alone places the page; a move to another page is
 * placed by placeNewPage.
 */
export const shouldUpdateScroll: GatsbyBrowser["shouldUpdateScroll"] = ({
  prevRouterProps,
  routerProps: { location },
  getSavedScrollPosition,
}) => {
  if (!prevRouterProps || prevRouterProps.location.pathname === location.pathname) return false;
  const [, savedTop] = getSavedScrollPosition(location) as [number, number];
  placeNewPage({ hash: location.hash, savedTop: Number(savedTop) || 0, scrollIntent: isScrollIntent(location.state) });
  return false;
};

/*
 * Gatsby warms up the pages that links in view lead to by adding
 * <link rel="prefetch"> for their page data and code. The Content Security
 * Policy checks such prefetches against default-src (CSP3, "prefetch"
 * initiator), which is 'none' here: Firefox refuses them and logs a violation
 * for each (Chromium does not apply the rule). Rather than open default-src,
 * Gatsby's own prefetching is off, and the same pages are loaded the way a
 * click loads them: the page data over XHR (connect-src 'self') and the code
 * as scripts (script-src 'self'). Gatsby still decides when: links in view,
 * three seconds on, never for a bot or on a slow or data-saving connection.
 */
export const disableCorePrefetching: GatsbyBrowser["disableCorePrefetching"] = () => true;

/** What Gatsby's runtime hands every browser API besides its own arguments (cache-dir/api-runner-browser.js). */
type LoadPage = (pathname: string) => Promise<unknown>;

export const onPrefetchPathname: GatsbyBrowser["onPrefetchPathname"] = ({ pathname, loadPage }) => {
  // A warm-up only: a page that fails to load here is loaded again, or reported, when the visitor goes to it.
  void (loadPage as LoadPage)(pathname).catch(() => {});
};
