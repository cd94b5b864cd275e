import { navigate } from "gatsby";
import { site, type SectionId } from "../site";
import { scrollToSection } from "./scroll";

/** Navigation state that asks the landing page to scroll once it is shown. */
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

/**
 * Takes the visitor to a landing-page section from anywhere on the site: on
 * the landing page it scrolls; elsewhere it navigates home and carries the
 * intent in history state, so the landing page scrolls after it is shown
 * (whether or not it was loaded before) instead of a timer on the old page.
 */
export function goToSection(
  id: SectionId,
  { pathname = window.location.pathname, go = navigate }: { pathname?: string; go?: typeof navigate } = {},
): void {
  if (pathname === site.routes.home) {
    scrollToSection(id);
    return;
  }
  const state: ScrollIntent = { scrollTo: id };
  void go(site.routes.home, { state });
}
