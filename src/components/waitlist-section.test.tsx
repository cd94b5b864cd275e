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

  it("claims the spec's figure as the spec words it, and no more: interested creators, not creators on the list", () => {
    render(<WaitlistSection />);
    const lead = screen.getByText(/Early access is free/);
    expect(lead).toHaveTextContent(
      new RegExp(`^${site.claims.creatorsInterested.replace("+", "\\+")} creators interested\\. `),
    );
    expect(lead).not.toHaveTextContent(/creators on the waitlist|Join \d/);
  });
});
