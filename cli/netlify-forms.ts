import type { NetlifyAPI } from "@netlify/api";
import { site } from "../config/site";
import { attributionFrom, type Attribution } from "../waitlist/attribution";
import { checkEmail } from "../config/email-address";

/*
 * Netlify Forms, where an earlier version of this site kept the waitlist on
 * Netlify, read through Netlify's API client for `import-forms`: a one-time,
 * whole-list read, a hundred submissions a call.
 */

/** One submission of the waitlist form, as the API returns it. */
interface FormSubmission {
  id: string;
  created_at: string;
  site_url?: string;
  data?: Record<string, unknown>;
}

/** One address of the old waitlist form: its first submission, with the attribution of the page it was sent from. */
export interface FormsSignup {
  email: string;
  emailKey: string;
  createdAt: string;
  attribution: Attribution;
}

const perPage = 100;

function originOf(url: unknown): string | undefined {
  try {
    return typeof url === "string" ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The waitlist form's signups, one per address (its first submission, however
 * later ones spelled it), oldest first; submissions without a valid address
 * are left out, as the signup endpoint refuses them. Undefined when the site has no
 * waitlist form: nothing to import.
 */
export async function formsSignups(
  api: NetlifyAPI,
  siteId: string,
  siteUrl: string,
): Promise<FormsSignup[] | undefined> {
  const forms = (await api.listSiteForms({ site_id: siteId })) as { id?: unknown; name?: unknown }[];
  const form = forms.find((candidate) => candidate.name === site.waitlist.formName);
  if (typeof form?.id !== "string") return undefined;
  const all: FormSubmission[] = [];
  for (let page = 1; ; page++) {
    const batch = (await api.listFormSubmissions({ form_id: form.id, page, per_page: perPage })) as FormSubmission[];
    all.push(...batch);
    if (batch.length < perPage) break;
  }
  all.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const byKey = new Map<string, FormsSignup>();
  for (const stored of all) {
    const email = stored.data?.[site.waitlist.emailField];
    const checked = checkEmail(typeof email === "string" ? email : undefined);
    if (!checked.ok || byKey.has(checked.key)) continue;
    const ownOrigins = [originOf(siteUrl), originOf(stored.site_url)].filter((origin) => origin !== undefined);
    byKey.set(checked.key, {
      email: checked.email,
      emailKey: checked.key,
      createdAt: stored.created_at,
      attribution: attributionFrom(stored.data?.referrer, ownOrigins),
    });
  }
  return [...byKey.values()];
}
