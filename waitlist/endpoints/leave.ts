import { RateLimiterMemory } from "rate-limiter-flexible";
import { siteSettings } from "../../config/env";
import {
  acceptsHtml,
  linkPageHandler,
  isCrossSite,
  openLinkRequest,
  readForm,
  refuse,
  type FormRequest,
  type Outcome,
} from "./form-request";
import { leavePath, verifyLeaveToken, type LeavingAddress } from "../tokens";

/** How a person left: the page's button, or their mail client's one-click POST (RFC 8058). */
export type LeaveKind = "link" | "one-click";

export interface LeaveOptions {
  /** The secret the links are signed with (tokens.ts). */
  secret: string;
  /** Deletes the signup the link was made for (any signup of the address, for an old link); resolves when there was none too. */
  remove: (address: LeavingAddress, how: LeaveKind) => Promise<void> | void;
  /** Requests per client IP per minute (GET and POST alike). */
  limiter: RateLimiterMemory;
  /** Where failures are reported; never given an address or a token. */
  warn?: (message: string) => void;
}

export const leaveLimiter = (perMinute: number) => new RateLimiterMemory({ points: perMinute, duration: 60 });

/** Requests the leave endpoint answers: /waitlist/leave, with or without a trailing slash. */
export function isLeavePath(path: string): boolean {
  return path === leavePath || path === `${leavePath}/`;
}

const notValid = (): Outcome => ({
  status: 400,
  heading: "This link is not valid",
  message: `This leave link is not valid. Write to ${siteSettings().contactEmail} and we will take your address off the list.`,
});

const done: Outcome = {
  status: 200,
  heading: "You're off the list.",
  message: "We won't e-mail you again.",
  line: "You're off the list. We won't e-mail you again.",
};

/**
 * The leave link's endpoint, one implementation for npm start, gatsby
 * develop and the Netlify function:
 *   GET  /waitlist/leave?token=…  a page asking to confirm; changes nothing (mail scanners follow links)
 *   POST /waitlist/leave          token=… from that page: removes the address, answers a page
 *   POST /waitlist/leave?token=…  List-Unsubscribe=One-Click (RFC 8058): the same, one line of text
 */
export function createLeave({ secret, remove, limiter, warn = () => {} }: LeaveOptions) {
  async function decide(request: FormRequest): Promise<{ outcome: Outcome; html: boolean }> {
    const page = (outcome: Outcome) => ({ outcome, html: true });
    const opened = await openLinkRequest(request, limiter);
    if ("refusal" in opened) return page(opened.refusal);
    const { query } = opened;
    if (!query) return page(notValid());

    if (request.method !== "POST") {
      const tokens = query.getAll("token");
      const address = tokens.length === 1 ? verifyLeaveToken(tokens[0], secret) : undefined;
      if (!address) return page(notValid());
      return page({
        status: 200,
        heading: `Remove ${address.email} from the waitlist?`,
        message: "You will get no more e-mail from us, not even when early access opens. You can join again any time.",
        action: { label: "Leave the waitlist", url: leavePath, fields: { token: tokens[0]! } },
      });
    }

    const form = await readForm(request, { multipart: true });
    if ("refusal" in form) return { outcome: form.refusal, html: acceptsHtml(request) };
    const { fields } = form;
    const oneClick = fields.getAll("List-Unsubscribe").length === 1 && fields.get("List-Unsubscribe") === "One-Click";
    const html = !oneClick && acceptsHtml(request);
    // A mail provider's one-click POST comes from its own servers, with no Origin: the token is what counts.
    if (!oneClick && isCrossSite(request)) {
      return { outcome: refuse(403, "Leave requests are accepted from this site only."), html };
    }
    // The token from the link's query, the page's form, or both (then the same).
    const tokens = [...query.getAll("token"), ...fields.getAll("token")];
    const address =
      tokens.length > 0 && tokens.every((token) => token === tokens[0])
        ? verifyLeaveToken(tokens[0], secret)
        : undefined;
    if (!address) return { outcome: notValid(), html };
    await remove(address, oneClick ? "one-click" : "link");
    return { outcome: done, html };
  }

  const handle = linkPageHandler(decide, {
    whatFailed: "remove an address",
    failure: () =>
      `Your address could not be removed just now. Please try again in a minute, or write to ${siteSettings().contactEmail}.`,
    warn,
  });

  return { handle };
}

export type Leave = ReturnType<typeof createLeave>;
