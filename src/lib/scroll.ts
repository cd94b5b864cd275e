import { site } from "../site";

export interface ScrollOptions {
  /** Space left between the viewport top and the section, in px. */
  offset?: number;
  /** Injected for tests; defaults to the browser's window. */
  win?: Window;
}

export function prefersReducedMotion(win: Window = window): boolean {
  return typeof win.matchMedia === "function" && win.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Document position that puts `element`'s top `offset` px below the viewport top. */
export function scrollTargetTop(element: Element, offset: number, win: Window = window): number {
  const top = element.getBoundingClientRect().top + win.scrollY - offset;
  return Math.max(0, Math.round(top));
}

/**
 * The one way the site scrolls to a section: smooth (instant when the visitor
 * asks for reduced motion), leaving the spec's 80 px offset for the fixed
 * header. Focus moves to the section without a second jump, so keyboard and
 * screen-reader users continue from where they were taken.
 * Returns false when there is no such section on this page.
 */
export function scrollToSection(
  id: string,
  { offset = site.scroll.offsetPx, win = window }: ScrollOptions = {},
): boolean {
  const element = win.document.getElementById(id);
  if (!element) return false;
  win.scrollTo({
    top: scrollTargetTop(element, offset, win),
    behavior: prefersReducedMotion(win) ? "auto" : "smooth",
  });
  if (!element.hasAttribute("tabindex")) element.setAttribute("tabindex", "-1");
  (element as HTMLElement).focus({ preventScroll: true });
  return true;
}
