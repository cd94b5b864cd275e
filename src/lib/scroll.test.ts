import { focusSection, placeNewPage, scrollToSection } from "./scroll";

function section(id: string, attributes: Record<string, string> = {}): HTMLElement {
  const element = document.createElement("section");
  element.id = id;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.scrollIntoView = jest.fn();
  document.body.append(element);
  return element;
}

beforeEach(() => {
  document.body.innerHTML = "";
  window.scrollTo = jest.fn();
});

describe("scrollToSection", () => {
  it("scrolls the section to the top, leaving its CSS scroll-margin, and lets the CSS choose the motion", () => {
    const target = section("waitlist", { tabindex: "-1" });
    expect(scrollToSection("waitlist")).toBe(true);
    // No behavior: the stylesheet's scroll-behavior decides (smooth, unless reduced motion is asked for).
    expect(target.scrollIntoView).toHaveBeenCalledWith({ block: "start" });
    expect(document.activeElement).toBe(target);
  });

  it("does nothing for a section that is not on the page", () => {
    expect(scrollToSection("nowhere")).toBe(false);
    expect(window.scrollTo).not.toHaveBeenCalled();
  });
});

describe("focusSection", () => {
  it("moves focus to the section without a second scroll", () => {
    const target = section("features", { tabindex: "-1" });
    const focus = jest.spyOn(target, "focus");
    expect(focusSection("features")).toBe(target);
    expect(focus).toHaveBeenCalledWith({ preventScroll: true });
    expect(document.activeElement).toBe(target);
  });

  it("makes a section without tabindex focusable by script only", () => {
    const target = section("features");
    focusSection("features");
    expect(target.getAttribute("tabindex")).toBe("-1");
    expect(document.activeElement).toBe(target);
  });

  it("returns null for a section that is not on the page", () => {
    expect(focusSection("nowhere")).toBeNull();
  });
});

describe("placeNewPage", () => {
  it("opens a page at its top, at once", () => {
    placeNewPage({ hash: "", savedTop: 0, scrollIntent: false });
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 0, left: 0, behavior: "instant" });
  });

  it("puts the visitor back where they left a page (Back)", () => {
    section("waitlist");
    placeNewPage({ hash: "#waitlist", savedTop: 1234, scrollIntent: false });
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 1234, left: 0, behavior: "instant" });
  });

  it("opens at the #section a link named, when there is no saved position", () => {
    const target = section("contact-us");
    placeNewPage({ hash: "#contact-us", savedTop: 0, scrollIntent: false });
    expect(target.scrollIntoView).toHaveBeenCalledWith({ block: "start", behavior: "instant" });
    expect(window.scrollTo).not.toHaveBeenCalled();
  });

  it("starts at the top when a section link from another page will scroll later", () => {
    const target = section("waitlist");
    placeNewPage({ hash: "#waitlist", savedTop: 900, scrollIntent: true });
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 0, left: 0, behavior: "instant" });
    expect(target.scrollIntoView).not.toHaveBeenCalled();
  });

  it("falls back to the top for a #section that is not on the page", () => {
    placeNewPage({ hash: "#nowhere", savedTop: 0, scrollIntent: false });
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 0, left: 0, behavior: "instant" });
  });
});
