import React from "react";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Hero } from "./hero";

describe("Hero", () => {
  it("shows the tagline as the page heading", () => {
    render(<Hero />);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(/^grow\. together\.$/);
  });

  it("pitches the marketplace with the 50-creator group cap", () => {
    render(<Hero />);
    expect(screen.getByText(/marketplace where TikTok creators/)).toHaveTextContent(/up to 50 creators/);
  });

  it("shows the three claimed figures", () => {
    render(<Hero />);
    const items = screen.getAllByRole("listitem").map((item) => item.textContent);
    expect(items).toEqual(["500+creators interested", "Q4 2025expected launch", "Freeearly access"]);
  });

  it("Join the Waitlist is a link to #waitlist, live before any script runs", () => {
    render(<Hero />);
    expect(screen.getByRole("link", { name: "Join the Waitlist" })).toHaveAttribute("href", "#waitlist");
  });

  it("Join the Waitlist moves focus to the waitlist section once the page is interactive", async () => {
    render(
      <>
        <Hero />
        <section id="waitlist" tabIndex={-1} />
      </>,
    );
    await userEvent.click(screen.getByRole("link", { name: "Join the Waitlist" }));
    expect(document.activeElement).toBe(document.getElementById("waitlist"));
  });
});
