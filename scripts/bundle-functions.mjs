// Bundles every Netlify function as Netlify does: @netlify/zip-it-and-ship-it with the settings of netlify.toml,
// unzipped into OUT_DIR. Prints, as JSON, each function's name and the module Netlify's runtime loads.
// node scripts/bundle-functions.mjs OUT_DIR   (a script: zip-it-and-ship-it is ESM only). Used by the bundle test and npm run bench:netlify.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { zipFunctions } from "@netlify/zip-it-and-ship-it";
import { parse } from "smol-toml";

const root = path.resolve(import.meta.dirname, "..");
const out = path.resolve(process.argv[2]);
const { functions: settings = {}, build = {} } = parse(readFileSync(path.join(root, "netlify.toml"), "utf8"));
const results = await zipFunctions([path.join(root, settings.directory)], out, {
  basePath: root,
  repositoryRoot: root,
  archiveFormat: "none",
  config: {
    "*": {
      includedFiles: settings.included_files ?? [],
      ...(settings.node_bundler ? { nodeBundler: settings.node_bundler } : {}),
      nodeVersion: build.environment?.NODE_VERSION,
    },
  },
});
const bundles = results.map((result) => {
  const folder = path.join(result.path, "netlify/functions");
  const module = readdirSync(folder).find((file) => file.startsWith(`${result.name}.`));
  return {
    name: result.name,
    bundler: result.bundler,
    runtime: result.runtimeVersion,
    module: path.join(folder, module),
  };
});
process.stdout.write(JSON.stringify(bundles));
