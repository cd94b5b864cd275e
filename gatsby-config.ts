// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-config/
import path from "node:path";
import type { GatsbyConfig } from "gatsby";
import rehypeSlug from "rehype-slug";
import { site } from "./src/site";
import { developWaitlistMiddleware } from "./server/develop";

export const legalContentDir = path.resolve(__dirname, "content/legal");

const config: GatsbyConfig = {
  siteMetadata: {
    title: site.title,
    description: site.description,
    siteUrl: site.url,
  },
  graphqlTypegen: { generateOnBuild: true },
  trailingSlash: "always",
  // `gatsby develop` answers the waitlist's POST / like npm start and Netlify Forms do.
  developMiddleware: (app: { use: (handler: ReturnType<typeof developWaitlistMiddleware>) => void }) => {
    app.use(developWaitlistMiddleware());
  },
  plugins: [
    // Preact in the browser bundle and for prerendering: a quarter of React's framework JavaScript.
    "gatsby-plugin-preact",
    // Head tags are read per page in gatsby-ssr.tsx's replaceRenderer; the plugin's own pass then finds none left.
    "gatsby-plugin-react-helmet",
    {
      resolve: "gatsby-plugin-sitemap",
      // The 404 page is for people who took a wrong turn, not for search engines.
      options: { excludes: ["/404/", "/404.html", "/dev-404-page/"] },
    },
    {
      resolve: "gatsby-source-filesystem",
      options: { name: "legal", path: legalContentDir },
    },
    {
      resolve: "gatsby-plugin-mdx",
      options: {
        // Stable ids on every heading, so the table of contents and shared links keep working.
        mdxOptions: { rehypePlugins: [rehypeSlug] },
      },
    },
  ],
};

export default config;
