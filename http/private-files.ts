import path from "node:path";

/*
 * What the build leaves in public/ for the build and the host, not for
 * visitors: webpack's stats and chunk map (Gatsby's bookkeeping), the slices
 * Gatsby stitches into pages, and Netlify's _headers and _redirects (Netlify
 * reads both and serves neither). npm start answers 404 for them; on Netlify,
 * the _redirects file written after the build does the same. Source maps,
 * which hold the full original source, are not written at all (gatsby-node).
 */
export const privateFiles = ["/webpack.stats.json", "/chunk-map.json", "/_headers", "/_redirects"] as const;
/** Folders whose every file is private. */
const privateFolders = ["/_gatsby/slices/"] as const;

/**
 * Whether a path (decoded: a file's name, or a request path after its
 * %-escapes) names a private file, however it is spelled: with dot segments
 * or doubled slashes, or as a compressed copy (.br, .gz).
 */
export function isPrivatePath(decodedPath: string): boolean {
  const file = path.posix.normalize(`/${decodedPath}`).replace(/\.(br|gz)$/, "");
  return (
    (privateFiles as readonly string[]).includes(file) ||
    file.endsWith(".map") ||
    privateFolders.some((folder) => file.startsWith(folder))
  );
}

/** Netlify's _redirects for a build: every private path answered with the 404 page (https://docs.netlify.com/routing/redirects/). */
export function netlifyRedirects(): string {
  const rules = [
    ...privateFiles.filter((file) => file !== "/_headers" && file !== "/_redirects"),
    ...privateFolders.map((folder) => `${folder}*`),
  ];
  return `${rules.map((rule) => `${rule}  /404.html  404!`).join("\n")}\n`;
}
