// Runs one bundled Netlify function as Lambda does, with require(esm) off:
//   node --no-experimental-require-module --no-experimental-detect-module test/support/invoke-bundle.mjs \
//     MODULE METHOD URL [BODY] [HEADERS_JSON]
// Prints the reply as JSON ({ status, body }) once the function's waitUntil work has settled.
const [module, method, url, body, headers] = process.argv.slice(2);
const { default: handler } = await import(module);
const pending = [];
const context = { ip: "203.0.113.7", waitUntil: (promise) => void pending.push(promise) };
const request = new Request(url, { method, headers: JSON.parse(headers ?? "{}"), body: body || undefined });
const response = await handler(request, context);
await Promise.allSettled(pending);
// Lambda freezes an instance once it has replied: a database pool it keeps open must not keep this process alive.
process.stdout.write(
  JSON.stringify({ status: response.status, body: response.status === 204 ? "" : await response.text() }),
  () => process.exit(0),
);
