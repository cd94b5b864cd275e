import { attributionFrom, noAttribution } from "./attribution";

const own = ["https://jointandem.app", "http://127.0.0.1:9000"];

describe("attributionFrom", () => {
  it("keeps every campaign parameter, the referral tag and the landing path of this site's page", () => {
    const referer =
      "https://jointandem.app/?utm_source=tiktok&utm_medium=social&utm_campaign=launch&utm_content=bio&utm_term=creators&ref=maya&fbclid=x";
    expect(attributionFrom(referer, own)).toEqual({
      utmSource: "tiktok",
      utmMedium: "social",
      utmCampaign: "launch",
      utmContent: "bio",
      utmTerm: "creators",
      ref: "maya",
      landingPath: "/",
    });
  });

  it("takes any of this site's origins, and keeps the path of a page other than home", () => {
    expect(attributionFrom("http://127.0.0.1:9000/privacy-policy/?ref=dm", own)).toMatchObject({
      ref: "dm",
      landingPath: "/privacy-policy/",
      utmSource: null,
    });
  });

  it("trims values, decodes them, and cuts them to 100 characters without splitting a character", () => {
    const long = "🎬".repeat(150);
    const attribution = attributionFrom(
      `https://jointandem.app/?utm_source=%20%20tik%20tok%20&utm_campaign=${encodeURIComponent(long)}&utm_term=%20`,
      own,
    );
    expect(attribution.utmSource).toBe("tik tok");
    expect(attribution.utmCampaign).toBe("🎬".repeat(100));
    expect(attribution.utmTerm).toBeNull();
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["not a URL", "garbage"],
    ["another site", "https://evil.test/?utm_source=tiktok"],
    ["a look-alike host", "https://jointandem.app.evil.test/?utm_source=tiktok"],
    ["another scheme of this host", "http://jointandem.app/?utm_source=tiktok"],
    ["oversized", `https://jointandem.app/?utm_source=tiktok&pad=${"x".repeat(5000)}`],
    ["a control character", "https://jointandem.app/?utm_source=tik%0Atok"],
    ["a direction-changing character", "https://jointandem.app/?utm_campaign=%E2%80%AEhcnual"],
    ["an escape sequence", "https://jointandem.app/?ref=%1B%5B31mred"],
  ])("stores nothing for a Referer that is %s", (_name, referer) => {
    expect(attributionFrom(referer, own)).toEqual(noAttribution);
  });
});
