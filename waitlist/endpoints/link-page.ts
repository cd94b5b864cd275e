import type { RateLimiterMemory } from "rate-limiter-flexible";
import { linkPageHeaders } from "../../http/headers";
import type { WaitlistSite } from "../site-settings";
import { parseUrlencoded } from "./form-body";
import { refuse, type FormReply, type FormRequest, type Outcome } from "./http";
import { rateLimited } from "./rate-limits";
import { acceptsHtml, formReply } from "./reply";
import { redactAddresses } from "../mail/redact";

/* What the endpoints of the e-mail's two links (confirm, leave) share: one handler shape, a GET shown, a POST acted on. */

/** What the endpoints of the e-mail's two links (confirm, leave) are given. */
export interface LinkEndpointOptions extends WaitlistSite {
  /** The secret the links are sealed with (tokens.ts). */
  secret: string;
  /** Requests per client IP per minute (GET and POST alike): linkLimiter. */
  limiter: RateLimiterMemory;
  /** Where failures are reported; never given an address or a token. */
  warn?: (message: string) => void;
}

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
      warn(`waitlist: could not ${whatFailed}: ${redactAddresses((error as Error).message)}`);
      decided = { outcome: refuse(500, failure()), html: request.method !== "POST" || acceptsHtml(request) };
    }
    const { outcome, html } = decided;
    return formReply(request, { ...outcome, headers: { ...outcome.headers, ...linkPageHeaders } }, { html });
  };
}
