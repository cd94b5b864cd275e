import type { IncomingMessage, ServerResponse } from "node:http";
import morgan from "morgan";
import { listeningOrigins } from "./listening-origins";
import type { AfterReply, FormReply, FormRequest } from "../waitlist/endpoints/http";
import type { Confirm } from "../waitlist/endpoints/confirm";
import type { Leave } from "../waitlist/endpoints/leave";
import type { MailEventEndpoints, MailProvider } from "../waitlist/endpoints/mail-events";
import { confirmPath, isLinkPath, leavePath, mailEventProvider, signupPath } from "../waitlist/routes";
import type { SignupEndpoint } from "../waitlist/endpoints/signup";

type Next = (error?: unknown) => void;
type Request = IncomingMessage & { ip?: string; originalUrl?: string };

/** The waitlist's endpoints (the signup endpoint, and the confirm and leave links) and what runs after a reply. */
export interface WaitlistEndpoints {
  signup: SignupEndpoint;
  leave: Leave;
  confirm: Confirm;
  /** The routes the mail providers post their bounces and complaints to, by provider. */
  mailEvents: MailEventEndpoints;
  /** What a reply names for after it (a signup's confirmation e-mail): the waitlist's (create-waitlist.ts). */
  runAfterReply: (work: AfterReply) => Promise<void>;
}

type EndpointName = "signup" | "leave" | "confirm";

/** Which endpoint answers a request: one by its name, or a provider's route of the mail events. */
type Routed = ({ name: EndpointName } | { name: "mail-events"; provider: MailProvider }) & { query: string };

function splitUrl(req: Request): { path: string; query: string } {
  const url = req.originalUrl ?? req.url ?? "/";
  const mark = url.indexOf("?");
  return mark < 0 ? { path: url, query: "" } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
}

/**
 * Which endpoint answers a request, with its query string: the signup endpoint
 * anything but GET and HEAD on the site root (the form's contract),
 * the leave and confirm endpoints and each provider's mail events their paths; undefined for the site's files.
 */
export function waitlistEndpoint(req: Request): Routed | undefined {
  const { path, query } = splitUrl(req);
  if (path === signupPath && req.method !== "GET" && req.method !== "HEAD") return { name: "signup", query };
  if (isLinkPath(path, leavePath)) return { name: "leave", query };
  if (isLinkPath(path, confirmPath)) return { name: "confirm", query };
  const provider = mailEventProvider(path);
  if (provider) return { name: "mail-events", provider, query };
  return undefined;
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
 * The adapter both servers share: hands a Node request to the endpoint
 * that answers it and writes its reply. Connect/Express middleware
 * signature, so it mounts in Gatsby's develop server and in the npm start
 * server alike.
 */
export function waitlistMiddleware(endpoints: WaitlistEndpoints) {
  return (req: Request, res: ServerResponse & { locals?: Record<string, unknown> }, next: Next): void => {
    const endpoint = waitlistEndpoint(req);
    if (!endpoint) {
      next();
      return;
    }
    const request: FormRequest = {
      method: req.method ?? "GET",
      headers: req.headers,
      query: endpoint.query,
      clientIp: req.ip ?? req.socket.remoteAddress ?? "unknown",
      ownOrigins: () => listeningOrigins(req.socket),
      body: req,
    };
    const handler =
      endpoint.name === "mail-events" ? endpoints.mailEvents[endpoint.provider] : endpoints[endpoint.name];
    handler.handle(request).then((reply: FormReply) => {
      res.locals = { ...res.locals, reason: reply.reason };
      // A refusal sent before the body was read: do not keep the rest of it on this connection.
      if (!req.complete) reply.headers.Connection = "close";
      // Once the reply is out, or the client gone: exactly once either way.
      const { afterReply } = reply;
      if (afterReply) res.once("close", () => void endpoints.runAfterReply(afterReply));
      res.writeHead(reply.status, reply.headers);
      res.end(req.method === "HEAD" ? undefined : reply.body);
    }, next);
  };
}
