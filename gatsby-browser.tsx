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
