import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import compression from "compression";
import express from "express";
import expressStaticGzip from "express-static-gzip";
import { cacheControlFor, htmlHeaders, securityHeaders } from "../http/headers";
import { encodings } from "../http/encodings";
import { requestLog, waitlistMiddleware, type WaitlistEndpoints } from "./waitlist-middleware";
import { renderResultPage, resultPagePolicy } from "../waitlist/endpoints/pages";
import { isPrivatePath } from "../http/private-files";

export interface AppOptions {
  publicDir: string;
  /** The signup endpoint (POST /), the links (/waitlist/leave, /waitlist/confirm), what runs after a reply. */
  endpoints: WaitlistEndpoints;
  /** How many proxies of yours stand in front (config/env.ts); 0 for none. */
  trustProxy?: number;
  log?: (line: string) => void;
  /** Where a server error (a 5xx: the store failing, say) is reported, with its stack. */
  logError?: (error: unknown) => void;
}

/**
 * The npm start server: the built site from public/ (the copies compressed
 * at build time, see precompress.ts, else compressed on the fly; with ETags
 * and Gatsby's caching rules), the signup endpoint on POST / and the
 * leave link at /waitlist/leave.
 */
export function createApp({
  publicDir,
  endpoints,
  trustProxy = 0,
  log,
  logError = (error) => console.error(error),
}: AppOptions): express.Express {
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
  // A hop count: Express takes the client from X-Forwarded-For, right to left, past that many proxies.
  app.set("trust proxy", trustProxy);
  app.use(requestLog(log));
  app.use((_req, res, next) => {
    res.set(securityHeaders);
    next();
  });
  app.use(compression());
  app.use(waitlistMiddleware(endpoints));
  // A compressed copy (index.html.br) carries the headers of the file it stands for.
  const compressedCopy = new RegExp(`(${encodings.map((encoding) => `\\${encoding.extension}`).join("|")})$`);
  const statics = expressStaticGzip(publicDir, {
    enableBrotli: true,
    orderPreference: ["br", "gzip"],
    index: "index.html",
    serveStatic: {
      etag: true,
      lastModified: false,
      redirect: true,
      setHeaders: (res, served) => {
        const file = served.replace(compressedCopy, "");
        if (file.endsWith(".html")) {
          for (const [name, value] of Object.entries(headersOf(file))) res.setHeader(name, value);
          return;
        }
        const urlPath = `/${path.relative(publicDir, file).split(path.sep).join("/")}`;
        res.setHeader("Cache-Control", cacheControlFor(urlPath));
      },
    },
  });
  // Files answer GET and HEAD only, and never the build's own (private-files.ts); the rest falls to the 404 below.
  app.use((req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    let decodedPath: string;
    try {
      decodedPath = decodeURIComponent(req.path);
    } catch {
      // Refused here, with the site's page, before the static server answers it in its own words.
      return next(Object.assign(new URIError("The path is not valid %-encoding."), { status: 400 }));
    }
    return isPrivatePath(decodedPath) ? next() : statics(req, res, next);
  });
  app.use((req, res) => {
    // Set when a compressed copy was picked but could not be sent (deleted since start-up).
    res.removeHeader("Content-Encoding");
    res.status(404);
    if (existsSync(notFoundPage) && (req.method === "GET" || req.method === "HEAD")) {
      res.set(headersOf(notFoundPage)).type("html").send(readFileSync(notFoundPage));
    } else {
      res.set("Cache-Control", "no-store").type("text").send("Not found.\n");
    }
  });
  // What Express itself refuses (a path that is not valid %-encoding, say): the site's page and headers, not Express's.
  app.use(
    (
      error: { status?: number; statusCode?: number },
      req: express.Request,
      res: express.Response,
      next: express.NextFunction,
    ) => {
      if (res.headersSent) {
        next(error);
        return;
      }
      const status = error.status ?? error.statusCode ?? 500;
      const refused = status >= 400 && status < 500;
      const reply = refused
        ? { heading: "That address is not valid", message: "Check the link, or go to the home page." }
        : { heading: "Something went wrong", message: "Please try again in a minute." };
      res.locals.reason = refused ? "not a valid request" : "server error";
      // The visitor gets a plain page; the operator gets what went wrong.
      if (!refused) logError(error);
      res.removeHeader("Content-Encoding");
      res
        .status(refused ? status : 500)
        .set(securityHeaders)
        .set({
          "Cache-Control": "no-store",
          "Content-Security-Policy": resultPagePolicy,
        });
      if (req.method === "HEAD") res.type("html").end();
      else res.type("html").send(renderResultPage(reply));
    },
  );
  return app;
}
