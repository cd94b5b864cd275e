import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import type { Config, Context } from "@netlify/functions";
import * as confirm from "../../netlify/functions/waitlist-confirm.mjs";
import * as drain from "../../netlify/functions/waitlist-drain.mjs";
import * as leave from "../../netlify/functions/waitlist-leave.mjs";
import * as mailEvents from "../../netlify/functions/waitlist-mail-events.mjs";
import * as signup from "../../netlify/functions/waitlist-signup.mjs";

/** The functions Netlify routes requests to, with their in-source config. */
export const routedFunctions = [
  { name: "waitlist-signup", ...signup },
  { name: "waitlist-leave", ...leave },
  { name: "waitlist-confirm", ...confirm },
  { name: "waitlist-drain", ...drain },
  { name: "waitlist-mail-events", ...mailEvents },
] as const satisfies readonly {
  name: string;
  default: (request: Request, context: Context) => Promise<Response>;
  config: Config;
}[];

/** Whether a function's config.path and config.method take this request. */
export function routes(config: Config, method: string, pathname: string): boolean {
  const paths = ([] as string[]).concat(config.path ?? []);
  const methods = ([] as string[]).concat(config.method ?? []);
  return paths.includes(pathname) && (methods.length === 0 || methods.includes(method));
}

export interface NetlifyEdge {
  url: string;
  /** Resolves when every waitUntil promise handed over so far has settled: the function's work after its reply. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local stand-in for Netlify's edge in front of the site: a request whose
 * path and method a function's config names goes to that function's handler
 * as a web Request, with a context carrying the client's address (from the
 * socket, as Netlify takes it from the connection) and waitUntil; everything
 * else is the built site's files. The functions themselves run unchanged.
 */
export async function startNetlifyEdge(publicDir: string): Promise<NetlifyEdge> {
  const pending = new Set<Promise<unknown>>();
  const app = express();
  let hosts: string[] = [];
  app.use(async (req, res, next) => {
    // Netlify answers for a site's own domains only; any other Host names no site of its.
    if (!hosts.includes(req.headers.host ?? "")) {
      res.status(404).type("text").send("Not Found - Request ID: stand-in\n");
      return;
    }
    const pathname = new URL(req.url, "http://edge").pathname;
    const fn = routedFunctions.find(({ config }) => routes(config, req.method, pathname));
    if (!fn) return next();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const one of ([] as string[]).concat(value ?? [])) headers.append(name, one);
    }
    const address = req.socket.remoteAddress ?? "";
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    });
    const context = {
      ip: address.replace(/^::ffff:/, ""),
      waitUntil: (promise: Promise<unknown>) => {
        pending.add(promise);
        void promise.finally(() => pending.delete(promise));
      },
    } as unknown as Context;
    let response: Response;
    try {
      response = await fn.default(request, context);
    } catch (error) {
      // What Netlify does with a function that throws: a bare 500, and the error in the function's log.
      console.error(error);
      res.status(500).end();
      return;
    }
    res.status(response.status);
    response.headers.forEach((value, name) => res.setHeader(name, value));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  app.use(express.static(publicDir));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  const idle = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    idle,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await idle();
    },
  };
}
