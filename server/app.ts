import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import compression from "compression";
import express from "express";
import { cacheControlFor, htmlHeaders, securityHeaders } from "./headers";
import { receiverMiddleware, requestLog } from "./http";
import type { Receiver } from "./receiver";

export interface AppOptions {
  publicDir: string;
  receiver: Receiver;
  trustProxy?: boolean;
  log?: (line: string) => void;
}

/**
 * The npm start server: the built site from public/ (compressed, with ETags
 * and Gatsby's caching rules) and the waitlist receiver on POST /.
 */
export function createApp({ publicDir, receiver, trustProxy = false, log }: AppOptions): express.Express {
  const notFoundPage = path.join(publicDir, "404.html");

  // Each page's headers come from its own HTML (its CSP hashes), the same
  // function that writes public/_headers; recomputed when the file changes.
  const pageHeaders = new Map<string, { mtimeMs: number; headers: Record<string, string> }>();
  const headersOf = (file: string) => {
    const { mtimeMs } = statSync(file);
    const cached = pageHeaders.get(file);
    if (cached?.mtimeMs === mtimeMs) return cached.headers;
    const headers = htmlHeaders(readFileSync(file, "utf8"));
    pageHeaders.set(file, { mtimeMs, headers });
    return headers;
  };

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", trustProxy);
  app.use(requestLog(log));
  app.use((_req, res, next) => {
    res.set(securityHeaders);
    next();
  });
  app.use(compression());
  app.use(receiverMiddleware(receiver));
  app.use(
    express.static(publicDir, {
      etag: true,
      lastModified: false,
      redirect: true,
      setHeaders: (res, file) => {
        if (file.endsWith(".html")) {
          res.set(headersOf(file));
          return;
        }
        const urlPath = `/${path.relative(publicDir, file).split(path.sep).join("/")}`;
        res.setHeader("Cache-Control", cacheControlFor(urlPath));
      },
    }),
  );
  app.use((req, res) => {
    res.status(404);
    if (existsSync(notFoundPage) && (req.method === "GET" || req.method === "HEAD")) {
      res.set(headersOf(notFoundPage)).type("html").send(readFileSync(notFoundPage));
    } else {
      res.set("Cache-Control", "no-store").type("text").send("Not found.\n");
    }
  });
  return app;
}
