// The headers Netlify sends for each path of a build, as Netlify's own code
// computes them from its _headers (@netlify/headers, what netlify dev runs):
//   node test/support/netlify-headers.mjs <publicDir> <path> [<path> …]
// prints {"<path>": {"<name>": "<value>", …}, …}. In a process of its own:
// the package is ESM that Jest's module system cannot load.
import path from "node:path";
import { HeadersHandler } from "@netlify/headers";

const [publicDir, ...paths] = process.argv.slice(2);
const logger = { log: () => {}, warn: console.error, error: console.error };
const handler = new HeadersHandler({
  projectDir: path.dirname(publicDir),
  publishDir: path.basename(publicDir),
  logger,
});
const result = {};
for (const pathname of paths) result[pathname] = await handler.apply(new Request(`https://site.example${pathname}`));
process.stdout.write(JSON.stringify(result));
