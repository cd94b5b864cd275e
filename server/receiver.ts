import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import contentType from "content-type";
import getRawBody from "raw-body";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { site } from "../src/site";
import { clientKey } from "./client-address";
import { checkEmail } from "./email";
import { renderResultPage, resultPagePolicy } from "./pages";
import type { SignupSource, WaitlistStore } from "./store";

/** What the receiver needs of an HTTP request, whatever server delivered it. */
export interface ReceiverRequest {
  method: string;
  headers: IncomingHttpHeaders;
  clientIp: string;
  /** The origins of the address the request came in on (client-address.ts's listeningOrigins); asked only when an Origin is sent. */
  ownOrigins: () => readonly string[];
  body: Readable;
}

export interface ReceiverReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The one-line reason of a refusal, for the request log; never contains the address. */
  reason?: string;
  /**
   * Work for after the reply is written (queueing a new signup's confirmation): done before it, it
   * would make a new address answer measurably later than a listed one.
   */
  afterReply?: () => void;
}

export interface NewSignup {
  email: string;
  emailKey: string;
  /** When it was stored. */
  createdAt: string;
}

export interface ReceiverOptions {
  store: WaitlistStore;
  source: SignupSource;
  rateLimitPerMinute: number;
  /** Called once a new address is stored and its reply written; must not throw or wait. */
  onNewSignup?: (signup: NewSignup) => void;
  /** Where failures are reported; never given a full address. */
  warn?: (message: string) => void;
}

export const maxBodyBytes = 4096;
export const allowedMethods = "GET, HEAD, POST";
const formType = "application/x-www-form-urlencoded";
const { formName, emailField, honeypotField } = site.waitlist;

const siteOrigin = new URL(site.url).origin;

const successText = "You are on the waitlist. Check your email for a confirmation message.";

interface Outcome {
  status: number;
  heading: string;
  /** One line, in words a visitor or operator can act on. */
  message: string;
  headers?: Record<string, string>;
  /** Work for after the reply is written. */
  after?: () => void;
}

const success: Outcome = { status: 200, heading: "You are on the list!", message: successText };

function refuse(status: number, message: string, headers?: Record<string, string>): Outcome {
  return { status, heading: "That did not work", message, headers };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A browser tells us where a POST comes from; refuse other sites (CSRF). The
 * Origin must be the configured site's (SITE_URL) or that of the address the
 * server listens on; never the request's own Host, which a DNS-rebinding page
 * sets to its own name.
 */
function isCrossSite(headers: IncomingHttpHeaders, ownOrigins: () => readonly string[]): boolean {
  if (header(headers, "sec-fetch-site") === "cross-site") return true;
  const origin = header(headers, "origin");
  if (origin === undefined) return false;
  let originOf: string;
  try {
    originOf = new URL(origin).origin;
  } catch {
    return true; // "null" (sandboxed or privacy-redirected) and garbage alike
  }
  return originOf !== siteOrigin && !ownOrigins().includes(originOf);
}

/**
 * A percent-escape that does not decode to UTF-8 (%FF), or is not one at all
 * (%zz): URLSearchParams would quietly make it U+FFFD or keep it as typed.
 */
function hasBrokenEscapes(text: string): boolean {
  for (const part of text.split(/[&=]/)) {
    try {
      decodeURIComponent(part.replace(/\+/g, " "));
    } catch {
      return true;
    }
  }
  return false;
}

/**
 * The waitlist receiver behind POST / (the Netlify Forms contract): parse,
 * validate, normalise, store, answer. Framework-neutral: the develop and
 * start adapters hand it a request and write back its reply.
 */
export function createReceiver(options: ReceiverOptions) {
  const limiter = new RateLimiterMemory({ points: options.rateLimitPerMinute, duration: 60 });
  const warn = options.warn ?? (() => {});

  async function decide(request: ReceiverRequest): Promise<Outcome> {
    if (request.method !== "POST") {
      return refuse(405, "Only POST is accepted here.", { Allow: allowedMethods });
    }
    if (isCrossSite(request.headers, request.ownOrigins)) {
      return refuse(403, "Signups are accepted from this site only.");
    }

    let type: contentType.ParsedMediaType;
    try {
      type = contentType.parse(header(request.headers, "content-type") ?? "");
    } catch {
      return refuse(415, `Send the form as ${formType}.`);
    }
    if (type.type !== formType) return refuse(415, `Send the form as ${formType}.`);
    const charset = type.parameters.charset?.toLowerCase();
    if (charset && charset !== "utf-8") return refuse(415, "Send the form in UTF-8.");
    const encoding = header(request.headers, "content-encoding")?.trim().toLowerCase();
    if (encoding && encoding !== "identity") {
      return refuse(415, "Send the form uncompressed: no Content-Encoding is decoded here.");
    }

    let raw: Buffer;
    try {
      raw = await getRawBody(request.body, {
        limit: maxBodyBytes,
        length: header(request.headers, "content-length"),
      });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === "entity.too.large") return refuse(413, `The form is larger than ${maxBodyBytes} bytes.`);
      return refuse(400, "The form could not be read.");
    }

    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
    } catch {
      return refuse(400, "The form is not valid UTF-8.");
    }
    if (hasBrokenEscapes(text)) return refuse(400, "The form is not valid UTF-8.");
    const fields = new URLSearchParams(text);

    if (fields.getAll("form-name").length !== 1 || fields.get("form-name") !== formName) {
      return refuse(404, "There is no such form on this site.");
    }

    try {
      await limiter.consume(clientKey(request.clientIp));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      return refuse(429, `Too many signups from your network; try again in ${seconds} seconds.`, {
        "Retry-After": String(seconds),
      });
    }

    // A filled honeypot, in any of its copies, is a bot: answer exactly like a success, keep nothing.
    if (fields.getAll(honeypotField).some((value) => value !== "")) return success;

    const emails = fields.getAll(emailField);
    if (emails.length > 1) return refuse(400, "Send one e-mail address at a time.");
    const checked = checkEmail(emails[0]);
    if (!checked.ok) return refuse(422, checked.reason);

    const { added, createdAt } = options.store.add({
      email: checked.email,
      emailKey: checked.key,
      source: options.source,
    });
    // New and repeat addresses get the same answer, after the same work: nobody can learn who is listed.
    if (!added || !options.onNewSignup) return success;
    const onNewSignup = options.onNewSignup;
    return { ...success, after: () => onNewSignup({ email: checked.email, emailKey: checked.key, createdAt }) };
  }

  async function handle(request: ReceiverRequest): Promise<ReceiverReply> {
    let outcome: Outcome;
    try {
      outcome = await decide(request);
    } catch (error) {
      warn(`waitlist: could not store a signup: ${(error as Error).message}`);
      outcome = refuse(500, "The signup could not be saved; please try again in a moment.");
    }
    const html = /\btext\/html\b/.test(header(request.headers, "accept") ?? "");
    return {
      status: outcome.status,
      headers: {
        "Content-Type": html ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
        ...(html ? { "Content-Security-Policy": resultPagePolicy } : {}),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        ...outcome.headers,
      },
      body: html ? renderResultPage(outcome) : `${outcome.message}\n`,
      ...(outcome.status >= 400 ? { reason: outcome.message } : {}),
      ...(outcome.after ? { afterReply: outcome.after } : {}),
    };
  }

  return { handle };
}

export type Receiver = ReturnType<typeof createReceiver>;
