import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the stand-in received. */
export interface ApiCall {
  method: string;
  /** Path and query, as sent. */
  url: string;
  authorization: string | undefined;
}

export interface NetlifyApiStandIn {
  /** For NETLIFY_API_URL. */
  url: string;
  calls: ApiCall[];
  /** Every call's request headers, in the order of `calls`. */
  headers: IncomingHttpHeaders[];
  /** Answer every request with this status instead (Netlify having a bad day). */
  failWith?: number;
  /** How many requests were answered 429. */
  limited: number;
  close(): Promise<void>;
}

/** Netlify's documented limit: 500 requests a minute per token. */
export const apiRequestsPerMinute = 500;

/**
 * A local HTTP server standing in for Netlify's API (https://open-api.netlify.com),
 * the one edge we don't own, for one site: GET /sites/:id and its 404, and the Blobs API, passed on to a local
 * Blobs server (`blobsUrl`) as Netlify passes it to its own. It enforces the
 * rate limit per token, in a window of a minute (`clock`, for a simulation's
 * time), answering 429 with X-RateLimit-Reset as Netlify does, and records
 * every call with its Authorization header.
 */
export async function startNetlifyApi({
  siteId,
  token,
  blobsUrl,
  clock = Date.now,
  perMinute = apiRequestsPerMinute,
  windowMs = 60_000,
}: {
  siteId: string;
  token: string;
  blobsUrl?: string;
  clock?: () => number;
  /** The limit and its window: Netlify's by default; a test may shrink both to see the limit bite in seconds. */
  perMinute?: number;
  windowMs?: number;
}): Promise<NetlifyApiStandIn> {
  const standIn: Omit<NetlifyApiStandIn, "url" | "close"> = {
    calls: [],
    headers: [],
    limited: 0,
  };
  const windows = new Map<string, { start: number; used: number }>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    standIn.calls.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization });
    standIn.headers.push(req.headers);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "Content-Type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (standIn.failWith) return send(standIn.failWith, { code: standIn.failWith, message: "Internal Server Error" });
    const authorization = req.headers.authorization ?? "";
    const now = clock();
    const window = windows.get(authorization);
    if (!window || now - window.start >= windowMs) windows.set(authorization, { start: now, used: 1 });
    else if (++window.used > perMinute) {
      standIn.limited++;
      const reset = Math.ceil((window.start + windowMs) / 1000);
      return send(429, { code: 429, message: "Rate limit exceeded" }, { "X-RateLimit-Reset": String(reset) });
    }
    if (authorization !== `Bearer ${token}`) return send(401, { code: 401, message: "Access Denied" });
    let match: RegExpMatchArray | null;
    if (blobsUrl && url.pathname.startsWith("/api/v1/blobs/")) {
      // A list (no key) is answered from the Blobs server's own listing: its emulation of the API's drops the prefix.
      const list = url.pathname.match(/^\/api\/v1\/blobs\/([^/]+)\/([^/]+)\/?$/);
      const upstreamPath = list ? `/${list[1]}/${list[2]}${url.search}` : (req.url ?? "");
      const upstream = http.request(
        `${blobsUrl}${upstreamPath}`,
        { method: req.method, headers: { ...req.headers, host: new URL(blobsUrl).host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
      return;
    }
    if (req.method === "GET" && (match = url.pathname.match(/^\/api\/v1\/sites\/([^/]+)$/))) {
      return match[1] === siteId
        ? send(200, { id: siteId, name: "jointandem", url: "https://jointandem.netlify.app" })
        : send(404, { code: 404, message: "Not Found" });
    }
    send(404, { code: 404, message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
