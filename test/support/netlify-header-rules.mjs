// The rules of a build's _headers as Netlify's own parser reads them
// (@netlify/headers-parser, what @netlify/headers and netlify dev use):
//   node test/support/netlify-header-rules.mjs <publicDir>
// prints [{"for": "/*", "pattern": "<regexp source>", "values": {"<name>": "<value>"}}, …].
// In a process of its own: the package is ESM that Jest's module system cannot load.
import path from "node:path";
import { parseAllHeaders } from "@netlify/headers-parser";

const [publicDir] = process.argv.slice(2);
const { headers, errors } = await parseAllHeaders({
  headersFiles: [path.join(publicDir, "_headers")],
  configHeaders: [],
  minimal: false,
});
if (errors.length > 0) {
  console.error(errors.map((error) => error.message).join("\n"));
  process.exit(1);
}
process.stdout.write(
  JSON.stringify(headers.map((rule) => ({ for: rule.for, pattern: rule.forRegExp.source, values: rule.values }))),
);
