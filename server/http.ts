import type { IncomingMessage, ServerResponse } from "node:http";
import morgan from "morgan";
import { listeningOrigins } from "./client-address";
import type { Receiver } from "./receiver";

type Next = (error?: unknown) => void;
type Request = IncomingMessage & { ip?: string; originalUrl?: string };

/** Requests the receiver answers: anything but GET and HEAD on the site root. */
export function isReceiverRequest(req: IncomingMessage): boolean {
  const path = (req.url ?? "/").split("?")[0];
  return path === "/" && req.method !== "GET" && req.method !== "HEAD";
}

/**
 * One line per request: time, method, path (never the query), status,
 * latency, and the reason of a refusal. Never an e-mail address.
 */
export function requestLog(write: (line: string) => void = (line) => process.stdout.write(line)) {
  return morgan<Request, ServerResponse & { locals?: { reason?: string } }>(
    (tokens, req, res) => {
      const path = (req.originalUrl ?? req.url ?? "").split("?")[0];
      const reason = res.locals?.reason ? ` - ${res.locals.reason}` : "";
      const time = tokens["response-time"]?.(req, res, "1") ?? "-";
      return `${new Date().toISOString()} ${req.method} ${path} ${res.statusCode} ${time}ms${reason}`;
    },
    { stream: { write } },
  );
}

/**
 * The adapter both servers share: hands a Node request to the receiver and
 * writes its reply. Connect/Express middleware signature, so it mounts in
 * Gatsby's develop server and in the npm start server alike.
 */
export function receiverMiddleware(receiver: Receiver) {
  return (req: Request, res: ServerResponse & { locals?: Record<string, unknown> }, next: Next): void => {
    if (!isReceiverRequest(req)) {
      next();
      return;
    }
    receiver
      .handle({
        method: req.method ?? "GET",
        headers: req.headers,
        clientIp: req.ip ?? req.socket.remoteAddress ?? "unknown",
        ownOrigins: () => listeningOrigins(req.socket),
        body: req,
      })
      .then((reply) => {
        res.locals = { ...res.locals, reason: reply.reason };
        // A refusal sent before the body was read: do not keep the rest of it on this connection.
        if (!req.complete) reply.headers.Connection = "close";
        // Once the reply is out, or the client gone: exactly once either way.
        if (reply.afterReply) res.once("close", reply.afterReply);
        res.writeHead(reply.status, reply.headers);
        res.end(req.method === "HEAD" ? undefined : reply.body);
      }, next);
  };
}
