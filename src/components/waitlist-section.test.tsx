import React from "react";
import { render, screen } from "@testing-library/react";
import { site } from "../../config/site";
import { WaitlistSection } from "./waitlist-section";

describe("WaitlistSection", () => {
  it("says under the form what a signup will receive, in the one consent statement, beside the Privacy Policy", () => {
    render(<WaitlistSection />);
    const line = screen.getByText(site.waitlist.consent.statement, { exact: false });
    expect(line).toHaveTextContent(`${site.waitlist.consent.statement} Read our Privacy Policy.`);
    expect(screen.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute("href", "/privacy-policy/");
  });
});
