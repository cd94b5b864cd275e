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
 * Gatsby warms up the pages that links in view lead to, about three seconds
 * on: their page data, app-data.json again and their code. On / that is the
 * two policies, whose links are beside the form: every visitor who scrolls to
 * it would fetch six files (23 KB) that few of them ever open, and Netlify
 * bills each request and byte. So prefetching is off. A link still loads its
 * page on a click, and Gatsby's Link still loads it ahead on hover (its
 * hovering(), a visitor's sign of intent), over XHR and as scripts, which the
 * Content Security Policy allows (a <link rel="prefetch"> would be checked
 * against default-src 'none', which Firefox refuses).
 */
export const disableCorePrefetching: GatsbyBrowser["disableCorePrefetching"] = () => true;
