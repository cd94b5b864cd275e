import { isScrollIntent, sectionHref } from "./section-links";

describe("sectionHref", () => {
  it("names only the fragment on the landing page, keeping its query string", () => {
    expect(sectionHref("waitlist", true)).toBe("#waitlist");
    expect(sectionHref("features", true)).toBe("#features");
  });

  it("points home from any other page", () => {
    expect(sectionHref("waitlist", false)).toBe("/#waitlist");
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
