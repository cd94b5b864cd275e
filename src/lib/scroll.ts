/*
 * The offset and the motion are CSS: every section has scroll-margin-top
 * (the spec's 80 px, from config/site.ts) and the page scrolls smoothly only
 * under prefers-reduced-motion: no-preference. Scripts only choose the
 * section and move focus there.
 */

/**
 * Moves focus to a section without scrolling, so keyboard and screen-reader
 * users continue from where a link took them. Sections carry tabindex="-1"
 * in the markup; Chromium focuses them on a fragment navigation by itself,
 * other browsers may not. Returns the section, or null when it is not here.
 */
export function focusSection(id: string, doc: Document = document): HTMLElement | null {
  const element = doc.getElementById(id);
  if (!element) return null;
  if (!element.hasAttribute("tabindex")) element.setAttribute("tabindex", "-1");
  element.focus({ preventScroll: true });
  return element;
}

/** Scrolls a section to its scroll-margin below the top, as the CSS says, and focuses it. */
export function scrollToSection(id: string, doc: Document = document): boolean {
  const element = doc.getElementById(id);
  if (!element) return false;
  element.scrollIntoView({ block: "start" });
  focusSection(id, doc);
  return true;
}

/**
 * Places a page the visitor just moved to from another page: where they left
 * it (Back), else its #section, else its top; at once, not with the
 * stylesheet's smooth scrolling. A section link from another page (a scroll
 * intent) starts at the top and scrolls later (src/pages/index.tsx).
 */
export function placeNewPage(
  { hash, savedTop, scrollIntent }: { hash: string; savedTop: number; scrollIntent: boolean },
  win: Window = window,
): void {
  const section =
    !scrollIntent && !savedTop && hash ? win.document.getElementById(decodeURIComponent(hash.slice(1))) : null;
  if (section) section.scrollIntoView({ block: "start", behavior: "instant" });
  else win.scrollTo({ top: scrollIntent ? 0 : savedTop, left: 0, behavior: "instant" });
}
