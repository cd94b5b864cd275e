/*
 * Where a signup came from, without a new form field: the page's own URL,
 * which the browser sends as the Referer of the same-origin POST (with its
 * query string, under the site's strict-origin-when-cross-origin policy;
 * the post without JavaScript sends it too). Netlify keeps the same header
 * as a submission's `referrer`.
 */

/** The link parameters kept, with the column each is stored in. */
const campaignParameters = {
  utm_source: "utmSource",
  utm_medium: "utmMedium",
  utm_campaign: "utmCampaign",
  utm_content: "utmContent",
  utm_term: "utmTerm",
  /** A short referral tag a founder may put in a link (?ref=maya). */
  ref: "ref",
} as const;

type CampaignKey = (typeof campaignParameters)[keyof typeof campaignParameters];

/** Attribution of one signup; a field is null when the link did not carry it. */
export type Attribution = Record<CampaignKey | "landingPath", string | null>;

export const noAttribution: Attribution = {
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
  utmContent: null,
  utmTerm: null,
  ref: null,
  landingPath: null,
};

const maxValueLength = 100;
/** Longer than any URL a browser sends as a Referer (Chromium caps it at 4096). */
const maxRefererLength = 4096;
// Control characters, and invisible or direction-changing ones (Cf): a spreadsheet or terminal must not be steered.
const forbidden = /[\p{Cc}\p{Cf}]/u;

/** Trimmed and cut to maxValueLength characters (never inside a surrogate pair); null when empty. */
function clean(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === "") return null;
  return Array.from(trimmed).slice(0, maxValueLength).join("");
}

/**
 * The page a Referer names, when it is a page of one of `ownOrigins` (this site's); undefined for a missing, foreign,
 * oversized or unparsable one. The signup's tags (attributionFrom) and its invite code (invites.ts) are read from it.
 */
export function ownPage(referer: unknown, ownOrigins: readonly string[]): URL | undefined {
  if (typeof referer !== "string" || referer.length > maxRefererLength) return undefined;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return undefined;
  }
  return ownOrigins.includes(url.origin) ? url : undefined;
}

/**
 * The attribution a Referer carries, when it is a page of one of `ownOrigins`
 * (this site's). A missing, foreign, oversized or unparsable Referer, or one
 * whose values hold control characters, gives noAttribution: bad values
 * never fail a signup, they are just not kept. Unknown parameters are ignored.
 */
export function attributionFrom(referer: unknown, ownOrigins: readonly string[]): Attribution {
  const url = ownPage(referer, ownOrigins);
  if (!url) return noAttribution;
  const attribution: Attribution = { ...noAttribution, landingPath: clean(url.pathname) };
  for (const [parameter, key] of Object.entries(campaignParameters)) {
    const value = url.searchParams.get(parameter);
    if (value === null) continue;
    if (forbidden.test(value)) return noAttribution;
    attribution[key] = clean(value);
  }
  return attribution;
}
