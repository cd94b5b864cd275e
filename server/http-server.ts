import http, { type RequestListener } from "node:http";
import type { Socket } from "node:net";
import { clientKey } from "../waitlist/client-address";
import { replyHeaders } from "../http/headers";

export interface ServerLimits {
  /** The whole request, headers and body, must arrive within this (Node's default: 5 minutes). */
  requestTimeoutMs: number;
  /** The headers must arrive within this (Node's default: 1 minute). */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections one client address may hold (IPv6: its /64); 0 for no cap. */
  connectionsPerClient: number;
}

/**
 * A visitor's browser sends a signup in milliseconds and holds six
 * connections; seconds and a few dozen are generous, and they keep a slow
 * client from holding the server's sockets for minutes.
 */
const defaultLimits: ServerLimits = {
  requestTimeoutMs: 15_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  connectionsPerClient: 64,
};

/** Node's own refusals (it answers them before any request handler runs), written with the site's headers. */
function refusalFor(error: NodeJS.ErrnoException): { status: number; text: string; message: string } {
  if (error.code === "HPE_HEADER_OVERFLOW") {
    return { status: 431, text: "Request Header Fields Too Large", message: "The request's headers are too large." };
  }
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return { status: 408, text: "Request Timeout", message: "The request took too long to arrive." };
  }
  return { status: 400, text: "Bad Request", message: "The request is not valid HTTP." };
}

function rawReply(status: number, text: string, message: string, extra: Record<string, string> = {}): string {
  const body = `${message}\n`;
  const headers = {
    ...replyHeaders("text"),
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
    ...extra,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${text}\r\n${lines.join("\r\n")}\r\n\r\n${body}`;
}

/**
 * The npm start server's HTTP server: `app` with timeouts in seconds, a cap
 * on connections per client address, and Node's own 400, 408 and 431 replies
 * carrying the site's security headers. `countByAddress`: false behind
 * proxies of yours (TRUST_PROXY), where every connection comes from them.
 */
export function createHttpServer(
  app: RequestListener,
  { limits = defaultLimits, countByAddress = true }: { limits?: ServerLimits; countByAddress?: boolean } = {},
): http.Server {
  const server = http.createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks the two timeouts above (default 30 s, which a timeout of seconds would not notice).
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs / 2),
    },
    app,
  );

  const open = new Map<string, number>();
  if (limits.connectionsPerClient > 0 && countByAddress) {
    server.on("connection", (socket: Socket) => {
      const key = clientKey(socket.remoteAddress);
      const count = (open.get(key) ?? 0) + 1;
      if (count > limits.connectionsPerClient) {
        // Read nothing from it: a request on a refused connection must never reach the app.
        socket.pause();
        socket.end(
          rawReply(503, "Service Unavailable", "Too many connections from your address.", { "Retry-After": "5" }),
        );
        socket.destroySoon();
        return;
      }
      open.set(key, count);
      socket.once("close", () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left === 0) open.delete(key);
        else open.set(key, left);
      });
    });
  }

  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    // A reply already under way (its headers out) can only be cut off.
    const replying = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === "ECONNRESET" || !socket.writable || replying) {
      socket.destroy();
      return;
    }
    const { status, text, message } = refusalFor(error);
    socket.end(rawReply(status, text, message));
  });
  return server;
}
