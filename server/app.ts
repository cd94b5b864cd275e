import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import compression from "compression";
import express from "express";
import { cacheControlFor, revalidate } from "./headers";
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
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", trustProxy);
  app.use(requestLog(log));
  app.use(compression());
  app.use(receiverMiddleware(receiver));
  app.use(
    express.static(publicDir, {
      etag: true,
      lastModified: false,
      redirect: true,
      setHeaders: (res, file) => {
        const urlPath = `/${path.relative(publicDir, file).split(path.sep).join("/")}`;
        res.setHeader("Cache-Control", cacheControlFor(urlPath));
      },
    }),
  );
  app.use((req, res) => {
    res.status(404).setHeader("Cache-Control", revalidate);
    if (existsSync(notFoundPage) && (req.method === "GET" || req.method === "HEAD")) {
      res.type("html").send(readFileSync(notFoundPage));
    } else {
      res.type("text").send("Not found.\n");
    }
  });
  return app;
}
