import type { IncomingHttpHeaders } from "node:http";
import { Readable } from "node:stream";
import busboy from "busboy";
import contentType from "content-type";
import getRawBody from "raw-body";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { clientKey } from "../client-address";
import type { SiteSettings } from "../settings";
import { linkPageHeaders, replyHeaders } from "../../http/headers";
import { renderResultPage, resultPagePolicy, type PageAction, type PageLink } from "./pages";

/*
 * What the site's three form endpoints (the signup at POST /, confirm and
 * leave) share, whatever server delivers the request (npm start, gatsby
 * develop, a Netlify function): reading a form post, refusing another
 * site's, and answering in the visitor's words.
 */

/** What an endpoint needs of an HTTP request. */
export interface FormRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** The query string, without "?"; "" when there is none. */
  query: string;
  clientIp: string;
  /** The origins of the address the request came in on (server/listening-origins.ts); asked only when an Origin is sent. */
  ownOrigins: () => readonly string[];
  body: Readable;
}

export interface FormReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The one-line reason of a refusal, for the request log; never holds an address or a token. */
  reason?: string;
  /**
   * Work for after the reply is written (queueing a new signup's confirmation): done before it, it
   * would make a new address answer measurably later than a listed one.
   */
  afterReply?: () => void;
}

/** What an endpoint decided, before it is written as a page or a line. */
export interface Outcome {
  status: number;
  heading: string;
  /** One line, in words a visitor or operator can act on. */
  message: string;
  /** The reply's one line of text, when it is not `message` alone. */
  line?: string;
  headers?: Record<string, string>;
  /** A button on the page (the leave page's). */
  action?: PageAction;
  /** Links in a line below the button (the confirm page's Privacy Policy and "This wasn't me"). */
  links?: PageLink[];
  /** Work for after the reply is written. */
  after?: () => void;
}

const maxBodyBytes = 4096;
export const formType = "application/x-www-form-urlencoded";
const multipartType = "multipart/form-data";

export function refuse(status: number, message: string, headers?: Record<string, string>): Outcome {
  return { status, heading: "That did not work", message, headers };
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Counts one request of a client (clientKey) against `limiter`; a 429 once it has used its share. */
export async function rateLimited(
  limiter: RateLimiterMemory,
  clientIp: string,
  what: string,
): Promise<Outcome | undefined> {
  try {
    await limiter.consume(clientKey(clientIp));
    return undefined;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    return refuse(429, `Too many ${what} from your network; try again in ${seconds} seconds.`, {
      "Retry-After": String(seconds),
    });
  }
}

/** What the endpoints of the e-mail's two links (confirm, leave) are given. */
export interface LinkEndpointOptions extends SiteSettings {
  /** The secret the links are sealed with (tokens.ts). */
  secret: string;
  /** Requests per client IP per minute (GET and POST alike): linkLimiter. */
  limiter: RateLimiterMemory;
  /** Where failures are reported; never given an address or a token. */
  warn?: (message: string) => void;
}

/** Requests a link's endpoint answers: its path (/waitlist/leave), with or without a trailing slash. */
export const isLinkPath = (path: string, linkPath: string) => path === linkPath || path === `${linkPath}/`;

/** The e-mail links' limit (confirm and leave alike): `perMinute` requests per client per minute. */
export const linkLimiter = (perMinute: number) => new RateLimiterMemory({ points: perMinute, duration: 60 });

/**
 * How the e-mail links' endpoints (confirm, leave) open a request: GET, HEAD
 * or POST only, the client's share of `limiter`, then the link's query; a
 * query that cannot be read is `invalid`. A refusal to answer with, or the query.
 */
export async function openLinkRequest(
  request: FormRequest,
  limiter: RateLimiterMemory,
  invalid: Outcome,
): Promise<{ refusal: Outcome } | { query: URLSearchParams }> {
  const { method } = request;
  if (method !== "GET" && method !== "HEAD" && method !== "POST") {
    return {
      refusal: refuse(405, "Open the link from your e-mail, or press the button on its page.", {
        Allow: "GET, HEAD, POST",
      }),
    };
  }
  const limited = await rateLimited(limiter, request.clientIp, "requests");
  if (limited) return { refusal: limited };
  const query = parseUrlencoded(request.query);
  return query ? { query } : { refusal: invalid };
}

/** The token a link opened with (GET ?token=…): exactly one, or none. */
function linkToken(query: URLSearchParams): string | undefined {
  const tokens = query.getAll("token");
  return tokens.length === 1 ? tokens[0] : undefined;
}

/** The token a link's page posted: from the link's query, the page's form, or both (then the same). */
export function postedToken(query: URLSearchParams, fields: URLSearchParams): string | undefined {
  const tokens = [...query.getAll("token"), ...fields.getAll("token")];
  return tokens.length > 0 && tokens.every((token) => token === tokens[0]) ? tokens[0] : undefined;
}

/**
 * This site's origins as a request may name them: the configured site's
 * (`siteUrl`, SITE_URL) and that of the address it came in on; never the
 * request's own Host, which a DNS-rebinding page sets to its own name.
 */
export function siteOrigins(request: FormRequest, siteUrl: string): readonly string[] {
  return [new URL(siteUrl).origin, ...request.ownOrigins()];
}

/** A browser tells us where a POST comes from; refuse other sites (CSRF): the Origin must be one of siteOrigins. */
export function isCrossSite(request: FormRequest, siteUrl: string): boolean {
  if (header(request.headers, "sec-fetch-site") === "cross-site") return true;
  const origin = header(request.headers, "origin");
  if (origin === undefined) return false;
  let originOf: string;
  try {
    originOf = new URL(origin).origin;
  } catch {
    return true; // "null" (sandboxed or privacy-redirected) and garbage alike
  }
  return !siteOrigins(request, siteUrl).includes(originOf);
}

/**
 * Stricter, for a button that acts in a person's name (the confirm page's): the browser must say the POST came
 * from this site, by an Origin of ours or `Sec-Fetch-Site: same-origin`. Every browser sends one of them with a
 * form post; a POST with neither is a script's or a scanner's. (The leave link's one-click POST has neither, by
 * RFC 8058, and does not ask this.)
 */
export function isFromThisSite(request: FormRequest, siteUrl: string): boolean {
  if (isCrossSite(request, siteUrl)) return false;
  return header(request.headers, "origin") !== undefined || header(request.headers, "sec-fetch-site") === "same-origin";
}

/**
 * Form fields in application/x-www-form-urlencoded text, refusing a
 * percent-escape that does not decode to UTF-8 (%FF) or is not one at all
 * (%zz): URLSearchParams would quietly make it U+FFFD or keep it as typed.
 */
export function parseUrlencoded(text: string): URLSearchParams | undefined {
  for (const part of text.split(/[&=]/)) {
    try {
      decodeURIComponent(part.replace(/\+/g, " "));
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(text);
}

/** multipart/form-data fields (busboy); a file, or too many parts, is refused. */
function parseMultipart(raw: Buffer, type: string): Promise<URLSearchParams | undefined> {
  return new Promise((resolve) => {
    const fields = new URLSearchParams();
    let refused = false;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": type },
        defParamCharset: "utf8",
        limits: { files: 0, fields: 20, parts: 20, fieldSize: maxBodyBytes },
      });
    } catch {
      resolve(undefined);
      return;
    }
    const refuseAll = () => (refused = true);
    parser.on("field", (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) refused = true;
      else fields.append(name, value);
    });
    parser.on("file", (_name, stream) => {
      refused = true;
      stream.resume();
    });
    parser.on("filesLimit", refuseAll);
    parser.on("fieldsLimit", refuseAll);
    parser.on("partsLimit", refuseAll);
    parser.on("error", () => resolve(undefined));
    parser.on("close", () => resolve(refused ? undefined : fields));
    Readable.from([raw]).pipe(parser);
  });
}

/**
 * Reads a form post: URL-encoded in UTF-8 (what a browser's form sends), or
 * multipart/form-data when `multipart` is allowed (RFC 8058's one-click
 * POST, which mail providers may send either way). No Content-Encoding, at
 * most maxBodyBytes. The refusal is the visitor's reply.
 */
export async function readForm(
  request: FormRequest,
  { multipart = false }: { multipart?: boolean } = {},
): Promise<{ fields: URLSearchParams } | { refusal: Outcome }> {
  const sendAs = multipart ? `${formType} or ${multipartType}` : formType;
  let type: contentType.ParsedMediaType;
  try {
    type = contentType.parse(header(request.headers, "content-type") ?? "");
  } catch {
    return { refusal: refuse(415, `Send the form as ${sendAs}.`) };
  }
  const isMultipart = multipart && type.type === multipartType;
  if (type.type !== formType && !isMultipart) return { refusal: refuse(415, `Send the form as ${sendAs}.`) };
  const charset = type.parameters.charset?.toLowerCase();
  if (charset && charset !== "utf-8") return { refusal: refuse(415, "Send the form in UTF-8.") };
  const encoding = header(request.headers, "content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    return { refusal: refuse(415, "Send the form uncompressed: no Content-Encoding is decoded here.") };
  }

  let raw: Buffer;
  try {
    raw = await getRawBody(request.body, { limit: maxBodyBytes, length: header(request.headers, "content-length") });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") {
      return { refusal: refuse(413, `The form is larger than ${maxBodyBytes} bytes.`) };
    }
    return { refusal: refuse(400, "The form could not be read.") };
  }

  let fields: URLSearchParams | undefined;
  if (isMultipart) {
    fields = await parseMultipart(raw, header(request.headers, "content-type")!);
    if (!fields) return { refusal: refuse(400, "The form could not be read.") };
  } else {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
    } catch {
      return { refusal: refuse(400, "The form is not valid UTF-8.") };
    }
    fields = parseUrlencoded(text);
  }
  if (!fields) return { refusal: refuse(400, "The form is not valid UTF-8.") };
  return { fields };
}

/** Whether the client asked for a page (a browser's own form post) rather than a line of text. */
export function acceptsHtml(request: Pick<FormRequest, "headers">): boolean {
  return /\btext\/html\b/.test(header(request.headers, "accept") ?? "");
}

/**
 * An outcome as the client asked for it: the site's small page for a browser
 * (Accept: text/html, the post without JavaScript), else one line of text.
 */
export function formReply(
  request: Pick<FormRequest, "headers">,
  outcome: Outcome,
  { html = acceptsHtml(request) }: { html?: boolean } = {},
): FormReply {
  return {
    status: outcome.status,
    headers: { ...replyHeaders(html ? "page" : "text", resultPagePolicy), ...outcome.headers },
    body: html ? renderResultPage(outcome) : `${outcome.line ?? outcome.message}\n`,
    ...(outcome.status >= 400 ? { reason: outcome.message } : {}),
    ...(outcome.after ? { afterReply: outcome.after } : {}),
  };
}

/** What a link page's endpoint made of a request: the outcome, and whether it is answered as a page. */
export interface LinkPageDecision {
  outcome: Outcome;
  html: boolean;
}

/** What makes one link's endpoint (confirm, leave): everything else is the same for both. */
export interface LinkPage<Found> {
  limiter: RateLimiterMemory;
  /** A link whose token does not open, or a query that cannot be read. */
  invalid: Outcome;
  /** What a token stands for (tokens.ts), undefined when it does not open. */
  verify: (token: string | undefined) => Found | undefined;
  /** GET and HEAD: the page the link opens, changing nothing (mail scanners follow links). */
  show: (found: Found, token: string) => Promise<Outcome> | Outcome;
  /** POST: what the page's button (or a mail client's one-click) does. */
  act: (request: FormRequest, query: URLSearchParams) => Promise<LinkPageDecision>;
  /** For the log: "could not confirm a signup". */
  whatFailed: string;
  /** The visitor's message when it fails (the store out of reach). */
  failure: () => string;
  warn: (line: string) => void;
}

/**
 * The handler of a page a link from an e-mail opens (confirm, leave): the
 * request opened (openLinkRequest), a GET shown, a POST acted on, and the
 * answer sent with the link pages' headers. An error (the store out of
 * reach) is logged and answered 500 with `failure()`, as a page unless a
 * script posted.
 */
export function linkPageHandler<Found>({
  limiter,
  invalid,
  verify,
  show,
  act,
  whatFailed,
  failure,
  warn,
}: LinkPage<Found>): (request: FormRequest) => Promise<FormReply> {
  const page = (outcome: Outcome): LinkPageDecision => ({ outcome, html: true });
  async function decide(request: FormRequest): Promise<LinkPageDecision> {
    const opened = await openLinkRequest(request, limiter, invalid);
    if ("refusal" in opened) return page(opened.refusal);
    if (request.method === "POST") return act(request, opened.query);
    const token = linkToken(opened.query);
    const found = verify(token);
    return page(found === undefined || token === undefined ? invalid : await show(found, token));
  }
  return async (request) => {
    let decided: LinkPageDecision;
    try {
      decided = await decide(request);
    } catch (error) {
      warn(`waitlist: could not ${whatFailed}: ${(error as Error).message}`);
      decided = { outcome: refuse(500, failure()), html: request.method !== "POST" || acceptsHtml(request) };
    }
    const { outcome, html } = decided;
    return formReply(request, { ...outcome, headers: { ...outcome.headers, ...linkPageHeaders } }, { html });
  };
}
