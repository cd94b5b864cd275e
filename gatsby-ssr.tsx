// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-ssr/
import React, { type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { Helmet } from "react-helmet";
import type { GatsbySSR } from "gatsby";
import { site } from "./config/site";
import { hydrationResources } from "./src/lib/hydration-resources";

/**
 * Renders each page synchronously and reads its react-helmet tags (the legal
 * pages' verification tag) right after. Why not the supported channel,
 * gatsby-plugin-react-helmet's onRenderBody: react-helmet keeps one global
 * state, and Gatsby renders two pages at a time per worker (render-html.js,
 * concurrency 2) with a streaming render, so another page can render in
 * between and lend a page its tags. Read here, nothing runs in between.
 * Gatsby runs one replaceRenderer only: test/build/renderer.test.ts fails
 * when a plugin brings another. Titles and every other head tag come from the
 * Head API (seo.tsx), so react-helmet's always-present, here empty, <title>
 * is left out.
 */
export const replaceRenderer: GatsbySSR["replaceRenderer"] = ({
  bodyComponent,
  replaceBodyHTMLString,
  setHeadComponents,
  setHtmlAttributes,
  setBodyAttributes,
}) => {
  replaceBodyHTMLString(renderToString(bodyComponent as ReactElement));
  const { title: _title, htmlAttributes, bodyAttributes, ...tags } = Helmet.renderStatic();
  setHtmlAttributes(htmlAttributes.toComponent());
  setBodyAttributes(bodyAttributes.toComponent());
  setHeadComponents(Object.values(tags).map((tag) => tag.toComponent()) as unknown as React.ReactNode[]);
};

/** Each chunk's files in a production build, null in develop: inlined by gatsby-node.ts into this renderer. */
declare const BUILD_PAGE_CHUNKS: Record<string, string[]> | null;
/** src/lib/waitlist-behaviour.ts's script, minified by gatsby-node.ts, which can run terser (this renderer is a bundle). */
declare const WAITLIST_BEHAVIOUR_SCRIPT: string;

/** site.colors as CSS custom properties: heroBg is --hero-bg. */
const brandColors = Object.entries(site.colors)
  .map(([name, value]) => `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}:${value}`)
  .join(";");

/**
 * In every page, before anything paints:
 * - the brand's colours and the spec's scroll offset as CSS variables, read
 *   by global.css and the CSS modules, so config/site.ts stays their one source;
 * - on the page with the waitlist form, its behaviour, which answers the
 *   form from the first paint, not from hydration (src/lib/waitlist-behaviour.ts);
 * - in a production build, the page's own component chunk, which Gatsby
 *   leaves to its loader, beside the app's bundles, and preloads of the data
 *   that loader fetches first (src/lib/hydration-resources.ts); when the
 *   bundles run is after-build/paint-first.ts's.
 */
export const onRenderBody: GatsbySSR["onRenderBody"] = ({
  pathname,
  loadPageDataSync,
  setHeadComponents,
  setPostBodyComponents,
}) => {
  setHeadComponents([
    <style
      key="site-tokens"
      dangerouslySetInnerHTML={{ __html: `:root{${brandColors};--section-offset:${site.scroll.offsetPx}px}` }}
    />,
  ]);
  if (pathname === site.routes.home) {
    setHeadComponents([<script key="waitlist-form" dangerouslySetInnerHTML={{ __html: WAITLIST_BEHAVIOUR_SCRIPT }} />]);
  }
  if (!BUILD_PAGE_CHUNKS) return;
  const pageData = loadPageDataSync(pathname) as unknown as { componentChunkName: string; staticQueryHashes: string[] };
  const { scripts, data } = hydrationResources(pathname, pageData, BUILD_PAGE_CHUNKS);
  setHeadComponents(
    data.map((href) => <link key={href} rel="preload" href={href} as="fetch" crossOrigin="anonymous" />),
  );
  setPostBodyComponents(scripts.map((src) => <script key={src} src={src} async />));
};
