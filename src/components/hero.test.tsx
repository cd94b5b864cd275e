import React from "react";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Hero } from "./hero";

describe("Hero", () => {
  it("shows the tagline as the page heading", () => {
    render(<Hero onSection={jest.fn()} />);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(/^grow\. together\.$/);
  });

  it("pitches the marketplace with the 50-creator group cap", () => {
    render(<Hero onSection={jest.fn()} />);
    expect(screen.getByText(/marketplace where TikTok creators/)).toHaveTextContent(/up to 50 creators/);
  });

  it("shows the three claimed figures", () => {
    render(<Hero onSection={jest.fn()} />);
    const items = screen.getAllByRole("listitem").map((item) => item.textContent);
    expect(items).toEqual(["500+creators interested", "Q4 2025expected launch", "Freeearly access"]);
  });

  it("Join the Waitlist scrolls to #waitlist", async () => {
    const onSection = jest.fn();
    render(<Hero onSection={onSection} />);
    await userEvent.click(screen.getByRole("button", { name: "Join the Waitlist" }));
    expect(onSection).toHaveBeenCalledWith("waitlist");
  });
});
