import { site } from "../../config/site";
import { isFromThisSite } from "./cross-site";
import { readForm } from "./form-body";
import { refuse, type Outcome } from "./http";
import type { PageInvite } from "./pages";
import { inviteUrl } from "../invites";
import { linkPageHandler, postedToken, type LinkEndpointOptions } from "./link-page";
import { maskEmail } from "../email-address";
import type { WaitlistStore } from "../stores/store";
import { confirmPath, leavePath } from "../routes";
import { leaveToken, verifyConfirmToken, type ConfirmingSignup } from "../tokens";

export interface ConfirmOptions extends LinkEndpointOptions {
  store: Pick<WaitlistStore, "lookup" | "confirm">;
  /** The version of the Privacy Policy in force now (policies.ts), kept with the confirmation. */
  privacyPolicy: () => string | null;
  /** What the person consents to now (policies.ts, consentRecord), kept likewise. */
  consent?: () => string;
  clock?: () => Date;
}

const notValid = (contactEmail: string): Outcome => ({
  status: 400,
  heading: "This link is not valid",
  message: `This confirmation link is not valid. Open the link in the e-mail we sent you, or write to ${contactEmail}.`,
});

/** The link was for a signup the list no longer holds: the address left, or signed up again since. */
const notListed = (): Outcome => ({
  status: 410,
  heading: "This signup is no longer on the list",
  message:
    "The address left the waitlist, or signed up again since this e-mail was sent: use the link in the newest e-mail, or join again on the home page.",
});

const day = (iso: string) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(iso));

const confirmed = (confirmedAt: string, first: boolean, invite: PageInvite | undefined): Outcome => ({
  status: 200,
  heading: first ? "Your spot is confirmed." : "You're already confirmed.",
  message: first
    ? `Thanks! Early access to ${site.name} opens a wave at a time: we'll e-mail you when it opens for you.`
    : `You confirmed your spot on ${day(confirmedAt)}. Nothing more to do: we'll e-mail you when early access opens for you.`,
  invite,
});

/**
 * The confirm link in every confirmation e-mail (double opt-in), one
 * implementation for npm start, gatsby develop and the Netlify function:
 *   GET  /waitlist/confirm?token=…  a page with the button, the address masked (not in its title: tabs, history
 *                                   and scanners' reports show titles), the Privacy Policy, and "This wasn't
 *                                   me" (the signup's leave page); changes nothing (mail scanners and link
 *                                   previews follow links)
 *   POST /waitlist/confirm          token=… from that page: records the confirmation, once; answers a page
 */
export function createConfirm({
  secret,
  store,
  privacyPolicy,
  consent,
  limiter,
  siteUrl,
  contactEmail,
  clock = () => new Date(),
  warn = () => {},
}: ConfirmOptions) {
  const invite = (code: string, confirmedInvites: number): PageInvite => ({
    url: inviteUrl(siteUrl, code),
    confirmedInvites,
  });

  /** The signup a link names, when the list still holds that very signup. */
  async function listed(signup: ConfirmingSignup) {
    const found = await store.lookup(signup.key);
    return found?.createdAt === signup.createdAt ? found : undefined;
  }

  const page = (outcome: Outcome) => ({ outcome, html: true });
  const handle = linkPageHandler({
    limiter,
    invalid: notValid(contactEmail),
    verify: (token) => verifyConfirmToken(token, secret),
    async show(signup, token) {
      const found = await listed(signup);
      if (!found) return notListed();
      // One confirmed before invites existed gets its code at its next press: a GET changes nothing.
      if (found.confirmedAt) {
        const code = found.inviteCode;
        return confirmed(found.confirmedAt, false, code ? invite(code, found.confirmedInvites) : undefined);
      }
      return {
        status: 200,
        heading: "Confirm your spot on the waitlist?",
        message: `One press and the spot for ${maskEmail(found.email)} is confirmed. ${site.waitlist.consent.statement}`,
        action: { label: site.waitlist.confirmLabel, url: confirmPath, fields: { token } },
        links: [
          { label: site.legalPages.privacyPolicy.title, url: site.routes.privacyPolicy },
          // The leave page of this very signup: its button removes the address at once, a GET changes nothing.
          {
            label: "This wasn't me: remove this address",
            url: `${leavePath}?token=${leaveToken(found.email, found.createdAt, secret)}`,
          },
        ],
      };
    },
    async act(request, query) {
      const form = await readForm(request);
      if ("refusal" in form) return page(form.refusal);
      if (!isFromThisSite(request, siteUrl)) {
        return page(
          refuse(403, "Confirmations are accepted from this site only: press the button on the page the link opens."),
        );
      }
      const signup = verifyConfirmToken(postedToken(query, form.fields), secret);
      if (!signup) return page(notValid(contactEmail));
      const result = await store.confirm(signup.key, {
        createdAt: signup.createdAt,
        at: clock(),
        privacyPolicy: privacyPolicy(),
        consent: consent?.() ?? null,
      });
      if (!result) return page(notListed());
      // A first confirmation has just got its code: nobody can have come by it yet. A second press reads the count.
      const count = result.first ? 0 : ((await store.lookup(signup.key))?.confirmedInvites ?? 0);
      return page(confirmed(result.confirmedAt, result.first, invite(result.inviteCode, count)));
    },
    whatFailed: "confirm a signup",
    failure: () => "Your spot could not be confirmed just now. Please try again in a minute.",
    warn,
  });

  return { handle };
}

export type Confirm = ReturnType<typeof createConfirm>;
