import React from "react";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Header } from "./header";

function setup() {
  const onSection = jest.fn();
  const user = userEvent.setup();
  render(
    <>
      <Header onSection={onSection} />
      <p>Outside</p>
    </>,
  );
  const toggle = screen.getByRole("button", { name: "Menu" });
  const menu = document.getElementById(toggle.getAttribute("aria-controls")!)!;
  return { onSection, user, toggle, menu };
}

describe("Header", () => {
  it("links the brand home", () => {
    setup();
    expect(screen.getByRole("link", { name: /tandem/i })).toHaveAttribute("href", "/");
  });

  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("%s scrolls to #%s", async (name, id) => {
    const { onSection, user } = setup();
    await user.click(within(screen.getByRole("navigation", { name: "Main" })).getByRole("button", { name }));
    expect(onSection).toHaveBeenCalledWith(id);
  });

  it("toggles the mobile menu open and closed", async () => {
    const { user, toggle, menu } = setup();
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(menu).not.toBeVisible();
    await user.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(menu).toBeVisible();
    await user.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(menu).not.toBeVisible();
  });

  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("choosing %s in the menu scrolls to #%s and closes the menu", async (name, id) => {
    const { onSection, user, toggle, menu } = setup();
    await user.click(toggle);
    await user.click(within(menu).getByRole("button", { name }));
    expect(onSection).toHaveBeenCalledWith(id);
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(menu).not.toBeVisible();
  });

  it("closes on Escape and returns focus to the toggle", async () => {
    const { user, toggle, menu } = setup();
    await user.click(toggle);
    await user.tab();
    expect(within(menu).getByRole("button", { name: "Features" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(toggle).toHaveFocus();
  });

  it("closes when the visitor taps outside the header", async () => {
    const { user, toggle } = setup();
    await user.click(toggle);
    await user.click(screen.getByText("Outside"));
    expect(toggle).toHaveAttribute("aria-expanded", "false");
  });
});
