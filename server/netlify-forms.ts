import { NetlifyAPI } from "@netlify/api";
import { site } from "../src/site";
import { attributionFrom, type Attribution } from "../waitlist/attribution";
import type { Env } from "../config/env";
import { checkEmail } from "../waitlist/email-address";

/*
 * The waitlist as Netlify Forms holds it, read through Netlify's own API
 * client (@netlify/api; https://open-api.netlify.com). One place for the
 * client, the variables it needs and the form's submissions, for every
 * function and command that reads them.
 */

/** One submission of the waitlist form, as the API returns it. */
export interface FormSubmission {
  id: string;
  form_id?: string;
  created_at: string;
  site_url?: string;
  data?: Record<string, unknown>;
}

/** A variable a function needs is missing: its message names it ("WAITLIST_SECRET is not set"). */
export class NetlifySetupError extends Error {}

/** The line a function logs when its setup is incomplete; the same for every function. */
export const setupProblemLine = (problem: string) =>
  `${problem}: set it in Netlify's environment variables, with the Functions scope.`;

const perPage = 100;

/**
 * A client for this site: NETLIFY_API_TOKEN (a personal access token, scoped
 * to Functions) and the site's id (SITE_ID, which Netlify sets for functions;
 * NETLIFY_SITE_ID elsewhere). NETLIFY_API_URL points the client at another
 * address, such as a proxy or a test's stand-in. A missing variable is a
 * NetlifySetupError naming it.
 */
export function netlifyForms(env: Env) {
  const token = env.NETLIFY_API_TOKEN;
  if (!token) throw new NetlifySetupError("NETLIFY_API_TOKEN is not set");
  const siteId: string = env.SITE_ID ?? env.NETLIFY_SITE_ID ?? "";
  if (siteId === "") throw new NetlifySetupError("SITE_ID (or NETLIFY_SITE_ID) is not set");
  const apiUrl = new URL(env.NETLIFY_API_URL);
  const api = new NetlifyAPI(token, {
    scheme: apiUrl.protocol.replace(/:$/, ""),
    host: apiUrl.host,
    pathPrefix: apiUrl.pathname.replace(/\/+$/, ""),
    userAgent: `${site.name.toLowerCase()}-waitlist`,
  });

  /** The id of this site's waitlist form; undefined when the site has none (no deploy has detected it yet). */
  async function waitlistFormId(): Promise<string | undefined> {
    const forms = (await api.listSiteForms({ site_id: siteId })) as { id?: unknown; name?: unknown }[];
    const form = forms.find((candidate) => candidate.name === site.waitlist.formName);
    return typeof form?.id === "string" ? form.id : undefined;
  }

  /** One submission by its id; undefined when Netlify has none by that id. */
  async function submission(id: string): Promise<FormSubmission | undefined> {
    try {
      const found = (await api.listFormSubmission({ submission_id: id })) as FormSubmission | FormSubmission[];
      // The API answers with the submission; its published spec says a list of them.
      return (Array.isArray(found) ? found : [found]).find((candidate) => candidate?.id === id);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  /** Every (verified) submission of one form, all pages, newest first as the API lists them. */
  async function submissions(formId: string): Promise<FormSubmission[]> {
    const all: FormSubmission[] = [];
    for (let page = 1; ; page++) {
      const batch = (await api.listFormSubmissions({ form_id: formId, page, per_page: perPage })) as FormSubmission[];
      all.push(...batch);
      if (batch.length < perPage) return all;
    }
  }

  /**
   * Deletes every submission of the waitlist form that holds the address with
   * this key (email-address.ts), however it was spelled; returns how many there were.
   */
  async function removeAddress(emailKey: string): Promise<number> {
    const formId = await waitlistFormId();
    if (!formId) return 0;
    const matches = (await submissions(formId)).filter((candidate) => submissionEmailKey(candidate) === emailKey);
    for (const match of matches) {
      try {
        await api.deleteSubmission({ submission_id: match.id });
      } catch (error) {
        // Gone already: a second leave request, or the founders, got there first.
        if ((error as { status?: number }).status !== 404) throw error;
      }
    }
    return matches.length;
  }

  /**
   * The waitlist as Netlify Forms holds it, shaped like the project's store:
   * one row per address (its first submission, however later ones spelled
   * it), oldest first, with the attribution of the page it was sent from
   * (the submission's referrer). Submissions without a valid address are
   * left out, as the project's receiver refuses them.
   */
  async function waitlistRows(): Promise<NetlifySignup[]> {
    const formId = await waitlistFormId();
    if (!formId) {
      throw new NetlifySetupError(
        `The site ${siteId} has no "${site.waitlist.formName}" form yet: turn on form detection and deploy (README, "Deploying to Netlify")`,
      );
    }
    const byKey = new Map<string, NetlifySignup>();
    const oldestFirst = (await submissions(formId)).sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
    );
    for (const stored of oldestFirst) {
      const checked = checkEmail(typeof stored.data?.email === "string" ? stored.data.email : undefined);
      if (!checked.ok || byKey.has(checked.key)) continue;
      const ownOrigins = [originOf(env.SITE_URL), originOf(stored.site_url)].filter((origin) => origin !== undefined);
      byKey.set(checked.key, {
        email: checked.email,
        createdAt: stored.created_at,
        source: "netlify",
        ...attributionFrom(stored.data?.referrer, ownOrigins),
      });
    }
    return [...byKey.values()];
  }

  return { api, siteId, waitlistFormId, submission, submissions, removeAddress, waitlistRows };
}

/** One address of the waitlist form, as waitlistRows() gives it. */
export interface NetlifySignup extends Attribution {
  email: string;
  createdAt: string;
  source: "netlify";
}

/** WAITLIST_SECRET, which the functions cannot do without: a NetlifySetupError naming it when it is not set. */
export function requiredLeaveSecret(env: Env): string {
  const secret = env.WAITLIST_SECRET;
  if (!secret) throw new NetlifySetupError("WAITLIST_SECRET is not set");
  return secret;
}

function originOf(url: unknown): string | undefined {
  try {
    return typeof url === "string" ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

/** This site's own origins on Netlify: SITE_URL's, and the one Netlify names in URL. */
export function netlifySiteOrigins(env: Env): string[] {
  return [originOf(env.SITE_URL), originOf(env.URL)].filter((origin): origin is string => origin !== undefined);
}

/** Whether `url` (a submission's site_url) is on one of this site's origins. */
export function isOwnSiteUrl(url: unknown, env: Env): boolean {
  const origin = originOf(url);
  return origin !== undefined && netlifySiteOrigins(env).includes(origin);
}

/** The key (email-address.ts) of a submission's address, or undefined when it holds no valid one. */
export function submissionEmailKey(submission: FormSubmission): string | undefined {
  const email = submission.data?.[site.waitlist.emailField];
  const checked = checkEmail(typeof email === "string" ? email : undefined);
  return checked.ok ? checked.key : undefined;
}
