// https://www.gatsbyjs.com/docs/reference/config-files/gatsby-node/
import { readFileSync } from "node:fs";
import path from "node:path";
import type { GatsbyNode } from "gatsby";
import matter from "gray-matter";
import type { ChunkGraph, Module } from "webpack";
import { minify_sync as minify } from "terser";
import { runAfterBuild } from "./after-build/steps";
import {
  placeholderController,
  placeholderHostingProvider,
  placeholderVerificationToken,
  publicSiteReason,
  readEnv,
  retiredVariablesSet,
  siteSettings,
} from "./config/env";
import { consentProblems } from "./scripts/legal-content/consent-rules";
import { mailProviderProblem } from "./config/mail-providers";
import { projectFolders } from "./config/folders";
import { mailProviderOf, readPolicySource } from "./waitlist/policies";
import { site } from "./config/site";
import { pastClaimWarnings } from "./scripts/legal-content/claims";
import { historyProblems } from "./scripts/legal-content/record";
import {
  duplicateSlugProblems,
  frontmatterProblems,
  namedSettingsProblems,
  sectionProblems,
  statementProblems,
} from "./scripts/legal-content/rules";
import { waitlistBehaviourScript } from "./src/lib/waitlist-behaviour";

const legalTemplate = path.resolve(__dirname, "src/templates/legal-page.tsx");
/** The name Gatsby gives src/pages/index.tsx's chunk (its componentChunkName). */
const landingChunk = "component---src-pages-index-tsx";

/** Paths in build messages are relative to the project, as legal staff see them in a pull request. */
function relative(file: string): string {
  return path.relative(__dirname, file);
}

export const onCreateWebpackConfig: GatsbyNode["onCreateWebpackConfig"] = ({ actions, plugins, stage }) => {
  if (stage === "build-html" || stage === "develop-html") {
    // Only the HTML renderer, never the browser: Gatsby builds it after the browser bundles, so it can name
    // each page's chunk files (gatsby-ssr.tsx announces them in the page). Inlined, because the renderer is a
    // webpack bundle run from .cache/ where the project's files are not where its source says. None in develop.
    const chunks =
      stage === "build-html"
        ? (
            JSON.parse(readFileSync(path.resolve(__dirname, "public/webpack.stats.json"), "utf8")) as {
              assetsByChunkName: Record<string, string[]>;
            }
          ).assetsByChunkName
        : null;
    // The form's behaviour, which its page carries inline, minified: 1.3 KB as Brotli sends it, against 1.5 KB.
    const behaviour = minify(waitlistBehaviourScript(), { ecma: 2015, compress: { passes: 2 } }).code;
    if (!behaviour) throw new Error("src/lib/waitlist-behaviour.ts: terser made nothing of the form's inline script.");
    actions.setWebpackConfig({
      plugins: [
        plugins.define({
          BUILD_PAGE_CHUNKS: JSON.stringify(chunks),
          WAITLIST_BEHAVIOUR_SCRIPT: JSON.stringify(behaviour),
        }),
      ],
    });
  }
  if (stage === "build-javascript") {
    actions.setWebpackConfig({
      // No source maps: they hold the full original source, and nobody debugs the deployed site with them
      // (private-files.ts). Not written at all, so neither npm start nor Netlify can serve them.
      devtool: false,
      // One script for a visit to the landing page, where Gatsby splits four: its runtime, the framework, the app and
      // the page's own chunk. Netlify bills every request (a request costs what 10 KB do), and a visitor gets all
      // four anyway, side by side; the policies keep chunks of their own, loaded beside this one.
      optimization: {
        runtimeChunk: false,
        splitChunks: {
          cacheGroups: {
            framework: false,
            landing: {
              name: "app",
              // Its scripts only: its CSS modules stay in Gatsby's one stylesheet, which every page inlines.
              test: (module: Module, { chunkGraph }: { chunkGraph: ChunkGraph }) =>
                module.type.startsWith("javascript/") &&
                [...chunkGraph.getModuleChunksIterable(module)].some((chunk) => chunk.name === landingChunk),
              chunks: "all",
              enforce: true,
              priority: 50,
            },
          },
        },
      },
      module: {
        rules: [
          {
            // Gatsby's loader takes the data the page carries before it fetches (src/lib/inline-data.ts).
            test: /[\\/]\.cache[\\/]loader\.js$/,
            enforce: "pre",
            use: [{ loader: path.resolve(__dirname, "src/lib/inline-data-wiring.cjs") }],
          },
        ],
      },
      plugins: [
        plugins.normalModuleReplacement(
          /internal-plugins[\\/]partytown[\\/]gatsby-browser\.js$/,
          path.resolve(__dirname, "src/lib/partytown-off.ts"),
        ),
      ],
    });
  }
};

/** The Privacy Policy's frontmatter as the site will serve it; none when it cannot be read (the content checks say why). */
function privacyPolicyFrontmatter(): unknown {
  const source = readPolicySource(projectFolders.legal, site.legalPages.privacyPolicy.slug);
  return source === undefined ? undefined : matter(source).data;
}

/**
 * A build for a public site (a Netlify production deploy, or a SITE_URL that is not local: publicSiteReason) must
 * carry the real verification token and name who controls the data the waitlist keeps, who hosts it, and the mail
 * provider MAIL_PROVIDER says (the Privacy Policy shows them); a local build gets placeholders, with a warning, so
 * `npm start` works with nothing set.
 */
export const onPreBuild: GatsbyNode["onPreBuild"] = ({ reporter }) => {
  // A setting the build no longer reads (LAUNCH_MAIL_TOOL): going on would leave out of a page what it put there.
  for (const message of retiredVariablesSet()) reporter.panic(message);
  const env = readEnv();
  const settings = siteSettings(env);
  const policy = privacyPolicyFrontmatter();
  const missing = [
    settings.siteVerificationToken === placeholderVerificationToken &&
      "TIKTOK_SITE_VERIFICATION is not set: the legal pages carry a placeholder verification token. Set it to the token from the developer portal.",
    settings.controllerName === placeholderController.name &&
      "CONTROLLER_NAME is not set: the Privacy Policy names a placeholder as the controller. Set it to the legal name of the company that runs the site.",
    settings.controllerAddress === placeholderController.address &&
      "CONTROLLER_ADDRESS is not set: the Privacy Policy gives a placeholder for the controller's postal address. Set it to that address, on one line.",
    settings.hostingProvider === placeholderHostingProvider &&
      "HOSTING_PROVIDER is not set: the Privacy Policy names a placeholder as the host. Set it to the legal name and country of the company whose servers serve the site and keep the waitlist, such as Hetzner Online GmbH (Germany).",
    // The mail provider the policy names is its own frontmatter's (a dated change), held to the one the site uses.
    mailProviderProblem(mailProviderOf(policy), env.MAIL_PROVIDER),
  ].filter((message): message is string => Boolean(message));
  const publicSite = publicSiteReason(env);
  // The controller and the host the page shows come from the settings; on a public site they must be the ones the
  // policy's frontmatter records, so that a change of either comes with a dated entry. A local build has placeholders.
  if (publicSite) missing.push(...namedSettingsProblems(policy, settings));
  // One refusal that names every setting missing: panic ends the build at once.
  if (publicSite && missing.length > 0) {
    reporter.panic(
      `${missing.join("\n")}\nThis build is for a public site (${publicSite}), which must not show a placeholder.`,
    );
  } else {
    for (const message of missing) reporter.warn(message);
  }
  // A new wording of the consent statement under an old version would be recorded as what signups were not shown.
  for (const problem of consentProblems(site.waitlist.consent)) reporter.panicOnBuild(problem);
};

/** A claimed date past is the client's to change (the spec fixes it): said in the output of every build, never refused. */
export const onPreInit: GatsbyNode["onPreInit"] = ({ reporter }) => {
  for (const warning of pastClaimWarnings(site.claims)) reporter.warn(warning);
};

/** Every legal page's frontmatter is typed and required, so a query can never return a half-filled policy. */
export const createSchemaCustomization: GatsbyNode["createSchemaCustomization"] = ({ actions }) => {
  actions.createTypes(`
    type Site implements Node {
      siteMetadata: SiteSiteMetadata!
    }
    type SiteSiteMetadata {
      title: String!
      description: String!
      siteUrl: String!
      contactEmail: String!
      siteVerificationToken: String!
      controllerName: String!
      controllerAddress: String!
      hostingProvider: String!
      favicon: String!
    }
    type Mdx implements Node {
      frontmatter: MdxFrontmatter!
    }
    type MdxFrontmatter {
      title: String!
      slug: String!
      description: String!
      effectiveDate: Date! @dateformat
      updates: [MdxPolicyUpdate!]
      launchMailTool: String
      mailProvider: String
      controller: String
      hostingProvider: String
      fingerprint: String!
    }
    type MdxPolicyUpdate {
      date: Date! @dateformat
      summary: String!
    }
  `);
};

/**
 * Bad frontmatter fails the build here, naming the file and the field, before any query runs; so does a policy
 * whose text changed without a dated entry saying what changed, or a Privacy Policy that leaves out a right or a
 * legal basis it must name.
 */
export const onCreateNode: GatsbyNode["onCreateNode"] = ({ node, reporter }) => {
  if (node.internal.type !== "Mdx") return;
  const contentFilePath = (node.internal as { contentFilePath?: string }).contentFilePath;
  const file = relative(contentFilePath ?? String(node.id));
  // The file as written, so that the lines a message gives repeat its past entries byte for byte.
  const source = contentFilePath ? readFileSync(contentFilePath, "utf8") : undefined;
  const problems = [
    ...frontmatterProblems(file, node.frontmatter),
    ...historyProblems(file, node.frontmatter, String(node.body ?? ""), source),
    ...statementProblems(file, String((node.frontmatter as { slug?: unknown })?.slug ?? ""), String(node.body ?? "")),
  ];
  for (const problem of problems) reporter.panicOnBuild(problem);
};

interface LegalPagesQuery {
  allMdx: {
    nodes: {
      id: string;
      frontmatter: { slug: string };
      tableOfContents: { items?: { title?: string }[] } | null;
      internal: { contentFilePath: string };
    }[];
  };
}

export const createPages: GatsbyNode["createPages"] = async ({ graphql, actions, reporter }) => {
  const result = await graphql<LegalPagesQuery>(`
    query LegalPages {
      allMdx(sort: { internal: { contentFilePath: ASC } }) {
        nodes {
          id
          frontmatter {
            slug
          }
          tableOfContents(maxDepth: 2)
          internal {
            contentFilePath
          }
        }
      }
    }
  `);
  if (result.errors || !result.data) {
    reporter.panicOnBuild("Could not read the legal pages from content/legal.", result.errors);
    return;
  }
  const pages = result.data.allMdx.nodes.map((node) => ({
    ...node,
    file: relative(node.internal.contentFilePath),
    slug: node.frontmatter.slug,
  }));

  const problems = [
    ...duplicateSlugProblems(pages),
    ...pages.flatMap((page) =>
      sectionProblems(
        page.file,
        page.slug,
        (page.tableOfContents?.items ?? []).map((item) => item.title ?? ""),
      ),
    ),
  ];
  if (problems.length > 0) {
    for (const problem of problems) reporter.panicOnBuild(problem);
    return;
  }

  for (const page of pages) {
    actions.createPage({
      path: `/${page.slug}/`,
      component: `${legalTemplate}?__contentFilePath=${page.internal.contentFilePath}`,
      context: { id: page.id },
    });
  }
};

/**
 * After the build, the steps in after-build/steps.ts, in their order.
 * AFTER_BUILD_SKIP=name,name leaves some out (npm run bench weighs each).
 */
export const onPostBuild: GatsbyNode["onPostBuild"] = async ({ reporter }) => {
  const env = readEnv();
  const options = { siteUrl: siteSettings(env).siteUrl, skip: env.AFTER_BUILD_SKIP };
  for (const line of await runAfterBuild(path.resolve(__dirname, "public"), options)) reporter.info(line);
};
