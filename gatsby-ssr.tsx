// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-ssr/
import React, { type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { Helmet } from "react-helmet";
import type { GatsbySSR } from "gatsby";

/**
 * Renders each page synchronously and reads its react-helmet tags right
 * after. react-helmet keeps one global state; with Gatsby's streaming render
 * (Preact's in particular) another page could render in between and lend a
 * page its title, so the tags are taken here, before anything else runs.
 */
export const replaceRenderer: GatsbySSR["replaceRenderer"] = ({
  bodyComponent,
  replaceBodyHTMLString,
  setHeadComponents,
  setHtmlAttributes,
  setBodyAttributes,
}) => {
  replaceBodyHTMLString(renderToString(bodyComponent as ReactElement));
  const helmet = Helmet.renderStatic();
  setHtmlAttributes({ lang: "en", ...helmet.htmlAttributes.toComponent() });
  setBodyAttributes(helmet.bodyAttributes.toComponent());
  setHeadComponents([
    helmet.title.toComponent(),
    helmet.meta.toComponent(),
    helmet.link.toComponent(),
    helmet.script.toComponent(),
    helmet.style.toComponent(),
    helmet.noscript.toComponent(),
    helmet.base.toComponent(),
  ] as unknown as React.ReactNode[]);
};
