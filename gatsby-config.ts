// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-config/
import type { GatsbyConfig } from "gatsby";
import { site } from "./src/site";

const config: GatsbyConfig = {
  siteMetadata: {
    title: site.title,
    description: site.description,
    siteUrl: site.url,
  },
  graphqlTypegen: { generateOnBuild: true },
  trailingSlash: "always",
  plugins: ["gatsby-plugin-react-helmet"],
};

export default config;
