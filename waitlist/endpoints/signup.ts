import { firstAsking } from "../signup-life/rules";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { site } from "../../config/site";
import { attributionFrom } from "../attribution";
import { inviteFrom } from "../invites";
import { checkEmail } from "../email-address";
import { isCrossSite, siteOrigins } from "./cross-site";
import { readForm } from "./form-body";
import { header, refuse, type FormReply, type FormRequest, type Outcome } from "./http";
import { rateLimited } from "./rate-limits";
import { formReply } from "./reply";
import { redactAddresses } from "../mail/redact";
import type { WaitlistSite } from "../site-settings";
import type { WaitlistStore } from "../stores/store";
import type { SignupSource } from "../signup-life/types";

export interface SignupOptions extends Pick<WaitlistSite, "siteUrl"> {
  /** Where signups are kept; none on a deploy preview, which answers as the site does and keeps nothing. */
  store?: Pick<WaitlistStore, "add">;
  source: SignupSource;
  rateLimitPerMinute: number;
  /** The version of the Privacy Policy in force (policies.ts), kept with each signup. */
  privacyPolicy?: () => string | null;
  /** What the person consents to: the statement's version and the policy's text (policies.ts), kept likewise. */
  consent?: () => string;
  /** The keyed digest of an address's mailbox, kept with its signup (invites.ts). */
  mailboxDigest?: (emailKey: string) => string;
  /** How long a new signup's record is held for its own sender's first attempt (its confirmation's lease). */
  claimFor?: number;
  /** Where failures are reported; never given a full address. */
  warn?: (message: string) => void;
}

const { formName, emailField, honeypotField } = site.waitlist;

// The spec's success message, the same with and without JavaScript.
const success: Outcome = {
  status: 200,
  heading: site.waitlist.successHeading,
  message: site.waitlist.messages.success,
};

/**
 * The signup endpoint behind POST / (the form's contract): parse,
 * validate, normalise, store, answer. Framework-neutral: the develop and
 * start adapters hand it a request and write back its reply, then hand what
 * the reply names for after it (afterReply: the confirmation e-mail) to the
 * waitlist's runAfterReply().
 */
export function createSignup(options: SignupOptions) {
  const limiter = new RateLimiterMemory({ points: options.rateLimitPerMinute, duration: 60 });
  const warn = options.warn ?? (() => {});

  async function decide(request: FormRequest): Promise<Outcome> {
    if (request.method !== "POST") {
      return refuse(405, "Only POST is accepted here.", { Allow: "GET, HEAD, POST" });
    }
    if (isCrossSite(request, options.siteUrl)) {
      return refuse(403, "Signups are accepted from this site only.");
    }

    const form = await readForm(request);
    if ("refusal" in form) return form.refusal;
    const { fields } = form;

    if (fields.getAll("form-name").length !== 1 || fields.get("form-name") !== formName) {
      return refuse(404, "There is no such form on this site.");
    }

    const limited = await rateLimited(limiter, request.clientIp, "signups");
    if (limited) return limited;

    // A filled honeypot, in any of its copies, is a bot: answer exactly like a success, keep nothing.
    if (fields.getAll(honeypotField).some((value) => value !== "")) return success;

    const emails = fields.getAll(emailField);
    if (emails.length > 1) return refuse(400, "Send one e-mail address at a time.");
    const checked = checkEmail(emails[0]);
    if (!checked.ok) return refuse(422, checked.reason);

    // Where it came from: the page the form was on, as the browser names it (attribution.ts).
    const referer = header(request.headers, "referer");
    const attribution = referer ? attributionFrom(referer, siteOrigins(request, options.siteUrl)) : undefined;
    // Who invited it: the page's ?invite=CODE, kept by the store when it is a confirmed signup's (invites.ts).
    const invitedBy = referer ? inviteFrom(referer, siteOrigins(request, options.siteUrl)) : undefined;
    // A deploy preview keeps nothing personal (docs/netlify.md, the Privacy Policy): the same answer, nothing kept.
    if (!options.store) return success;
    const { added, createdAt } = await options.store.add({
      email: checked.email,
      emailKey: checked.key,
      source: options.source,
      attribution,
      privacyPolicy: options.privacyPolicy?.() ?? undefined,
      consent: options.consent?.(),
      invitedBy,
      mailboxDigest: options.mailboxDigest?.(checked.key),
      claimFor: options.claimFor,
    });
    // New and repeat addresses get the same answer, after the same work: nobody can learn who is listed. What
    // follows (the e-mail; for a repeat, perhaps the e-mail again) is named here and happens after the reply.
    if (!added) return { ...success, afterReply: { send: "confirmation again, if due", emailKey: checked.key } };
    const signup = firstAsking({ email: checked.email, emailKey: checked.key, createdAt });
    return { ...success, afterReply: { send: "confirmation", signup, claimed: options.claimFor !== undefined } };
  }

  async function handle(request: FormRequest): Promise<FormReply> {
    let outcome: Outcome;
    try {
      outcome = await decide(request);
    } catch (error) {
      // A store's error may quote the key it failed on: the log holds no address.
      warn(`waitlist: could not store a signup: ${redactAddresses((error as Error).message)}`);
      outcome = refuse(500, "The signup could not be saved; please try again in a moment.");
    }
    return formReply(request, outcome);
  }

  return { handle };
}

export type SignupEndpoint = ReturnType<typeof createSignup>;
