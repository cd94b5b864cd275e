import React from "react";
import { render, screen } from "@testing-library/react";
import { site } from "../../config/site";
import { WaitlistSection } from "./waitlist-section";

describe("WaitlistSection", () => {
  it("says under the form what a signup will receive, in the one consent statement, beside both policies", () => {
    render(<WaitlistSection />);
    const line = screen.getByText(site.waitlist.consent.statement, { exact: false });
    expect(line).toHaveTextContent(
      `${site.waitlist.consent.statement} Read our Privacy Policy and our Terms of Service.`,
    );
    expect(screen.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute("href", "/privacy-policy/");
    expect(screen.getByRole("link", { name: "Terms of Service" })).toHaveAttribute("href", "/terms-of-service/");
  });

  it("says who may join, by the Terms' ages, without a field of its own: the parent's permission covers GDPR's 16", () => {
    render(<WaitlistSection />);
    const line = screen.getByText(site.waitlist.consent.statement, { exact: false });
    expect(line).toHaveTextContent(
      `Join only if you are ${site.minimumAge} or older, and if you are under ${site.parentalPermissionUnder}, only with a parent's or guardian's permission.`,
    );
    expect(site.parentalPermissionUnder).toBeGreaterThanOrEqual(16);
    // The form asks for the address and nothing else: no age field, no checkbox.
    expect(screen.getAllByRole("textbox")).toHaveLength(1);
    expect(screen.queryByRole("checkbox")).toBeNull();
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
