import { goToSection, isScrollIntent } from "./go-to-section";
import * as scroll from "./scroll";

beforeEach(() => jest.restoreAllMocks());

describe("goToSection", () => {
  it("scrolls on the landing page", () => {
    const scrollSpy = jest.spyOn(scroll, "scrollToSection").mockReturnValue(true);
    const go = jest.fn();
    goToSection("waitlist", { pathname: "/", go });
    expect(scrollSpy).toHaveBeenCalledWith("waitlist");
    expect(go).not.toHaveBeenCalled();
  });

  it("navigates home carrying the section as state from any other page", () => {
    const scrollSpy = jest.spyOn(scroll, "scrollToSection");
    const go = jest.fn(() => Promise.resolve());
    goToSection("waitlist", { pathname: "/privacy-policy/", go });
    expect(go).toHaveBeenCalledWith("/", { state: { scrollTo: "waitlist" } });
    expect(scrollSpy).not.toHaveBeenCalled();
  });
});

describe("isScrollIntent", () => {
  it.each([{ scrollTo: "waitlist" }, { scrollTo: "features", key: "abc" }])("accepts %j", (state) => {
    expect(isScrollIntent(state)).toBe(true);
  });

  it.each([null, undefined, {}, { scrollTo: "hero" }, { scrollTo: 3 }, "waitlist"])("refuses %j", (state) => {
    expect(isScrollIntent(state)).toBe(false);
  });
});
