import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const publicDir = path.resolve(__dirname, "../../public");

/** Parses a page of the last `gatsby build`, failing with what to run when there is none. */
export function builtPage(route: string): Document {
  const file = path.join(publicDir, route, "index.html");
  if (!existsSync(file)) {
    throw new Error(`${path.relative(process.cwd(), file)} is missing: run \`npm run build\` first.`);
  }
  return new DOMParser().parseFromString(readFileSync(file, "utf8"), "text/html");
}
