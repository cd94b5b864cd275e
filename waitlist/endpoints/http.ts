import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { PageAction, PageInvite, PageLink } from "./pages";
import type { OwedConfirmation } from "../signup-life/types";

/*
 * What the waitlist's endpoints (the signup at POST /, confirm and leave) take and give, whatever server delivers
 * the request (npm start, gatsby develop, a Netlify function): a request, an outcome in the visitor's words, and
 * the reply it is written as (reply.ts).
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
  /** What the waitlist does once this reply is written (AfterReply). */
  afterReply?: AfterReply;
}

/**
 * What the waitlist does once a reply is written, named in the reply as a plain value: the e-mail a signup is owed.
 * Done before the reply, it would make a new address answer measurably later than a listed one. Each adapter hands it,
 * once the reply is out, to the waitlist's runAfterReply() (create-waitlist.ts), which starts the mail.
 */
export type AfterReply =
  /**
   * A new signup: the first attempt at its confirmation e-mail (mail/confirmations.ts, sendSoon); `claimed`, its
   * record was made held for it.
   */
  | { send: "confirmation"; signup: OwedConfirmation; claimed?: boolean }
  /** A listed address signed up again: the e-mail once more, if unconfirmed and a day has passed (askAgainSoon). */
  | { send: "confirmation again, if due"; emailKey: string };

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
  /** A confirmed signup's invite link and count, on its confirm page (waitlist/invites.ts). */
  invite?: PageInvite;
  /** What the waitlist does once the reply is written. */
  afterReply?: AfterReply;
}

export function refuse(status: number, message: string, headers?: Record<string, string>): Outcome {
  return { status, heading: "That did not work", message, headers };
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
