// Node's module hooks that resolve @netlify/database to its stand-in (netlify-database-client.cjs), for a function
// run in a process of its own or bundled (npm run bench:netlify): node --import <registerNetlifyDatabase> …
const client = new URL("./netlify-database-client.cjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  return specifier === "@netlify/database" ? { url: client, shortCircuit: true } : next(specifier, context);
}
