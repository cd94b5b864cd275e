import { maskEmail } from "../email-address";
import { isCrossSite } from "./cross-site";
import { readForm } from "./form-body";
import { refuse, type Outcome } from "./http";
import { linkPageHandler, postedToken, type LinkEndpointOptions } from "./link-page";
import { acceptsHtml } from "./reply";
import { leavePath } from "../routes";
import { verifyLeaveToken, type LeavingAddress } from "../tokens";

/** How a person left: the page's button, or their mail client's one-click POST (RFC 8058). */
export type LeaveKind = "link" | "one-click";

export interface LeaveOptions extends LinkEndpointOptions {
  /**
   * Deletes the address's signup, whichever signup the link was mailed for (GDPR Art. 7(3): leaving is as easy as
   * joining, from any e-mail ever sent, as RFC 8058's one-click is from an old message); resolves whether one was.
   */
  remove: (address: LeavingAddress, how: LeaveKind) => Promise<boolean>;
}

const notValid = (contactEmail: string): Outcome => ({
  status: 400,
  heading: "This link is not valid",
  message: `This leave link is not valid. Write to ${contactEmail} and we will take your address off the list.`,
});

const done: Outcome = {
  status: 200,
  heading: "You're off the list.",
  message: "We won't e-mail you again.",
  line: "You're off the list. We won't e-mail you again.",
};

/** What a leave link says when the address was not on the list: nothing was removed, and nothing will be sent. */
const notListed: Outcome = {
  status: 200,
  heading: "You're not on the list.",
  message:
    "This address is not on the waitlist (it may have left already), so there was nothing to remove. We won't e-mail you.",
  line: "This address is not on the waitlist, so there was nothing to remove. We won't e-mail you.",
};

/**
 * The leave link's endpoint, one implementation for npm start, gatsby
 * develop and the Netlify function:
 *   GET  /waitlist/leave?token=…  a page asking to confirm; changes nothing (mail scanners follow links)
 *   POST /waitlist/leave          token=… from that page: removes the address, answers a page
 *   POST /waitlist/leave?token=…  List-Unsubscribe=One-Click (RFC 8058): the same, one line of text
 */
export function createLeave({ secret, remove, limiter, siteUrl, contactEmail, warn = () => {} }: LeaveOptions) {
  const handle = linkPageHandler({
    limiter,
    invalid: notValid(contactEmail),
    verify: (token) => verifyLeaveToken(token, secret),
    // The address masked, as on the confirm page: the title and heading reach tabs, history and scanners' reports.
    show: (address, token) => ({
      status: 200,
      heading: `Remove ${maskEmail(address.email)} from the waitlist?`,
      message: "You will get no more e-mail from us, not even when early access opens. You can join again any time.",
      action: { label: "Leave the waitlist", url: leavePath, fields: { token } },
    }),
    async act(request, query) {
      const form = await readForm(request, { multipart: true });
      if ("refusal" in form) return { outcome: form.refusal, html: acceptsHtml(request) };
      const { fields } = form;
      const oneClick = fields.getAll("List-Unsubscribe").length === 1 && fields.get("List-Unsubscribe") === "One-Click";
      const html = !oneClick && acceptsHtml(request);
      // A mail provider's one-click POST comes from its own servers, with no Origin: the token is what counts.
      if (!oneClick && isCrossSite(request, siteUrl)) {
        return { outcome: refuse(403, "Leave requests are accepted from this site only."), html };
      }
      const address = verifyLeaveToken(postedToken(query, fields), secret);
      if (!address) return { outcome: notValid(contactEmail), html };
      const removed = await remove(address, oneClick ? "one-click" : "link");
      return { outcome: removed ? done : notListed, html };
    },
    whatFailed: "remove an address",
    failure: () =>
      `Your address could not be removed just now. Please try again in a minute, or write to ${contactEmail}.`,
    warn,
  });

  return { handle };
}

export type Leave = ReturnType<typeof createLeave>;
