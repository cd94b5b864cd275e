import { site, type SectionId } from "../../config/site";

/*
 * Links to the landing page's sections are plain links: they work from the
 * first paint and without JavaScript. On the landing page a link names only
 * the fragment (#waitlist), so the browser scrolls in place (leaving the
 * section's scroll-margin-top, see gatsby-ssr.tsx) and keeps the query string
 * the visitor arrived with; anywhere else it points home (/#waitlist).
 */
export function sectionHref(id: SectionId, onLanding: boolean): string {
  return onLanding ? `#${id}` : `${site.routes.home}#${id}`;
}

/** Navigation state that asks the landing page to scroll once it is shown (spec: after about 200 ms). */
export interface ScrollIntent {
  scrollTo: SectionId;
}

const sectionIds: readonly string[] = Object.values(site.sections);

export function isScrollIntent(state: unknown): state is ScrollIntent {
  return (
    typeof state === "object" &&
    state !== null &&
    typeof (state as { scrollTo?: unknown }).scrollTo === "string" &&
    sectionIds.includes((state as { scrollTo: string }).scrollTo)
  );
}
