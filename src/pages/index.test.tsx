import React from "react";
import { render, screen, within } from "@testing-library/react";
import type { PageProps } from "gatsby";
import IndexPage from "./index";
import * as scroll from "../lib/scroll";

function page(state: unknown) {
  const location = { pathname: "/", state, key: "k1" } as unknown as PageProps["location"];
  return <IndexPage {...({ location } as PageProps)} />;
}

beforeEach(() => {
  jest.useFakeTimers();
  jest.spyOn(scroll, "scrollToSection").mockReturnValue(true);
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

describe("landing page", () => {
  it("has the features section with its three cards and the waitlist section with the form", () => {
    render(page(null));
    const features = document.getElementById("features")!;
    const titles = within(features)
      .getAllByRole("heading", { level: 3 })
      .map((heading) => heading.textContent);
    expect(titles).toEqual(["AI-powered matching", "Seamless Communication", "Group Collaborations"]);
    expect(within(features).getByText(/up to 50 creators in one chat/)).toBeInTheDocument();
    const waitlist = document.getElementById("waitlist")!;
    expect(within(waitlist).getByLabelText("Email address")).toBeInTheDocument();
  });

  it("has a footer with the contact address and both legal pages", () => {
    render(page(null));
    const footer = within(screen.getByRole("contentinfo"));
    expect(footer.getByRole("link", { name: /@/ }).getAttribute("href")).toMatch(/^mailto:[^@]+@[^@]+$/);
    expect(footer.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute("href", "/privacy-policy/");
    expect(footer.getByRole("link", { name: "Terms of Service" })).toHaveAttribute("href", "/terms-of-service/");
  });

  it("scrolls to the waitlist 200 ms after arriving with that intent", () => {
    render(page({ scrollTo: "waitlist" }));
    jest.advanceTimersByTime(199);
    expect(scroll.scrollToSection).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(scroll.scrollToSection).toHaveBeenCalledWith("waitlist");
  });

  it("does not scroll on a plain visit", () => {
    render(page(null));
    jest.advanceTimersByTime(1000);
    expect(scroll.scrollToSection).not.toHaveBeenCalled();
  });

  it("drops the pending scroll when the page goes away", () => {
    const { unmount } = render(page({ scrollTo: "waitlist" }));
    unmount();
    jest.advanceTimersByTime(1000);
    expect(scroll.scrollToSection).not.toHaveBeenCalled();
  });
});
