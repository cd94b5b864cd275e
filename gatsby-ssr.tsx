// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-ssr/
import React, { type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { Helmet } from "react-helmet";
import type { GatsbySSR } from "gatsby";
import { site } from "./src/site";
import { earlySubmitScript } from "./src/lib/early-submit";

/**
 * Renders each page synchronously and reads its react-helmet tags (the legal
 * pages' verification tag) right after. react-helmet keeps one global state;
 * with Gatsby's streaming render (Preact's in particular) another page could
 * render in between and lend a page its tags, so they are taken here, before
 * anything else runs. Titles and every other head tag come from the Head API
 * (seo.tsx), so react-helmet's always-present, here empty, <title> is left out.
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

/**
 * In every page, before anything paints:
 * - the spec's scroll offset as a CSS variable, read by scroll-margin-top in
 *   global.css, so src/site.ts stays its one source;
 * - the capture that holds back a waitlist submit made before hydration
 *   (src/lib/early-submit.ts).
 */
export const onRenderBody: GatsbySSR["onRenderBody"] = ({ setHeadComponents }) => {
  setHeadComponents([
    <style
      key="site-offset"
      dangerouslySetInnerHTML={{ __html: `:root{--section-offset:${site.scroll.offsetPx}px}` }}
    />,
    <script key="early-submit" dangerouslySetInnerHTML={{ __html: earlySubmitScript(site.waitlist.formName) }} />,
  ]);
};
