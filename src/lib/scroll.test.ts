import { prefersReducedMotion, scrollTargetTop, scrollToSection } from "./scroll";

function section(id: string, viewportTop: number): HTMLElement {
  const element = document.createElement("section");
  element.id = id;
  element.getBoundingClientRect = () => ({ top: viewportTop }) as DOMRect;
  document.body.append(element);
  return element;
}

function setReducedMotion(reduce: boolean) {
  window.matchMedia = jest.fn((query: string) => ({
    matches: reduce && query === "(prefers-reduced-motion: reduce)",
    media: query,
  })) as unknown as typeof window.matchMedia;
}

beforeEach(() => {
  document.body.innerHTML = "";
  window.scrollTo = jest.fn();
  Object.defineProperty(window, "scrollY", { value: 300, configurable: true });
  setReducedMotion(false);
});

describe("scrollToSection", () => {
  it("places the section 80 px below the top of the viewport, smoothly", () => {
    section("waitlist", 1000);
    expect(scrollToSection("waitlist")).toBe(true);
    // 1000 px below the viewport top, already scrolled 300 px, minus the 80 px offset.
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 1220, behavior: "smooth" });
  });

  it("jumps without animation when the visitor prefers reduced motion", () => {
    setReducedMotion(true);
    section("features", 500);
    scrollToSection("features");
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 720, behavior: "auto" });
    expect(prefersReducedMotion()).toBe(true);
  });

  it("moves focus to the section without a second scroll", () => {
    const target = section("waitlist", 1000);
    const focus = jest.spyOn(target, "focus");
    scrollToSection("waitlist");
    expect(focus).toHaveBeenCalledWith({ preventScroll: true });
    expect(document.activeElement).toBe(target);
    expect(target.getAttribute("tabindex")).toBe("-1");
  });

  it("does nothing for a section that is not on the page", () => {
    expect(scrollToSection("nowhere")).toBe(false);
    expect(window.scrollTo).not.toHaveBeenCalled();
  });

  it("never asks for a position above the top of the page", () => {
    expect(scrollTargetTop(section("hero", -400), 80)).toBe(0);
  });

  it("honours another offset when asked", () => {
    expect(scrollTargetTop(section("x", 100), 20)).toBe(380);
  });
});
