/*
 * Stands in for Gatsby's built-in Partytown browser plugin in production
 * bundles (gatsby-node.ts swaps it in). That plugin does its work only under
 * `gatsby develop` and returns at once in production, yet pulls gatsby-script
 * and Partytown's integration (about 2 KB compressed) into every page's app
 * bundle. No page uses <Script strategy="off-main-thread">.
 */
export {};
