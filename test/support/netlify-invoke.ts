// Runs one Netlify function's handler in a process of its own, as a function
// instance: node --import tsx test/support/netlify-invoke.ts <function> <method> <url> [body]
// Prints the reply's status, then "done" once its waitUntil work has settled;
// a test kills it in between, as Netlify may stop an instance mid-send.
import path from "node:path";
import type { Context } from "@netlify/functions";

async function main() {
  const [name, method, url, body] = process.argv.slice(2);
  const { default: handler } = (await import(path.join(__dirname, "../../netlify/functions", `${name!}.mts`))) as {
    default: (request: Request, context: Context) => Promise<Response>;
  };
  const pending: Promise<unknown>[] = [];
  const response = await handler(
    new Request(url!, {
      method,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/plain" },
      body,
    }),
    { ip: "203.0.113.9", waitUntil: (promise: Promise<unknown>) => void pending.push(promise) } as unknown as Context,
  );
  console.log(String(response.status));
  await Promise.allSettled(pending);
  console.log("done");
}

void main();
