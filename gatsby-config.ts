// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-config/
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { GatsbyConfig } from "gatsby";
import rehypeSlug from "rehype-slug";
import { site } from "./config/site";
import { ConfigError, readEnv, siteSettings } from "./config/env";
import { buildsForNetlify, netlifyAdapterWithSiteHeaders } from "./after-build/netlify-adapter";

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** The environment, checked; a bad value stops the build with the one line that names it. */
function checkedEnv() {
  try {
    return readEnv();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const env = checkedEnv();
const favicon = readFileSync(path.resolve(__dirname, "static/favicon.svg"), "utf8").trim();

const config: GatsbyConfig = {
  // What the pages take from the environment reaches them here (src/components/use-site-settings.ts).
  siteMetadata: {
    title: site.title,
    description: site.description,
    ...siteSettings(env),
    favicon: `data:image/svg+xml,${encodeURIComponent(favicon)}`,
  },
  graphqlTypegen: { generateOnBuild: true },
  trailingSlash: "always",
  // Where Gatsby would pick its Netlify adapter by itself (on Netlify, and under `netlify serve`), this one, which writes
  // the site's _headers.
  ...(buildsForNetlify(env) ? { adapter: netlifyAdapterWithSiteHeaders() } : {}),
  // `gatsby develop` answers the waitlist's POST / like npm start and Netlify's signup function do.
  // Imported on the first request, so a build, which never calls this, never loads the store (SQLite).
  developMiddleware: (app: { use: (handler: Handler) => void }) => {
    let handler: Promise<Handler> | undefined;
    app.use((req, res, next) => {
      handler ??= import("./server/develop").then(({ developWaitlistMiddleware }) => developWaitlistMiddleware());
      // A failure to load or to answer goes to Express's error handling, never an unhandled rejection.
      handler.then((run) => run(req, res, next)).catch(next);
    });
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
      options: { name: "legal", path: path.resolve(__dirname, "content/legal") },
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
