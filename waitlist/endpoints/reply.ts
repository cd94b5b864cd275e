import { replyHeaders } from "../../http/headers";
import { header, type FormReply, type FormRequest, type Outcome } from "./http";
import { invitePagePolicy, renderResultPage, resultPagePolicy } from "./pages";

/* An outcome written as the client asked for it: the site's small page, or one line of text. */

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
    headers: {
      ...replyHeaders(html ? "page" : "text", outcome.invite ? invitePagePolicy : resultPagePolicy),
      ...outcome.headers,
    },
    body: html ? renderResultPage(outcome) : `${outcome.line ?? outcome.message}\n`,
    ...(outcome.status >= 400 ? { reason: outcome.message } : {}),
    ...(outcome.afterReply ? { afterReply: outcome.afterReply } : {}),
  };
}
