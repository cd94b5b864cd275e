// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-node/
import type { GatsbyNode } from "gatsby";
import { buildEnvNames } from "./src/site";

/**
 * src/site.ts reads a few settings from the environment at build time. Inline
 * them into every bundle so the server render and the browser agree.
 */
export const onCreateWebpackConfig: GatsbyNode["onCreateWebpackConfig"] = ({ actions, plugins }) => {
  const definitions = Object.fromEntries(
    buildEnvNames.map((name) => [`process.env.${name}`, JSON.stringify(process.env[name] ?? "")]),
  );
  actions.setWebpackConfig({ plugins: [plugins.define(definitions)] });
};
