import React from "react";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { hydrateRoot } from "react-dom/client";
import userEvent from "@testing-library/user-event";
import { Link } from "gatsby";
import { Header } from "./header";

function setup({ onLanding = true } = {}) {
  const user = userEvent.setup();
  document.body.innerHTML = "";
  render(
    <>
      <Header onLanding={onLanding} />
      <p>Outside</p>
      <section id="features" tabIndex={-1} />
      <section id="waitlist" tabIndex={-1} />
    </>,
  );
  const menu = document.querySelector("header details") as HTMLDetailsElement;
  const toggle = within(menu).getByText("Menu").closest("summary")!;
  const panel = within(menu).getByRole("navigation", { name: "Mobile", hidden: true });
  return { user, menu, toggle, panel };
}

beforeEach(() => jest.mocked(Link).mockClear());

describe("Header", () => {
  it("links the brand home", () => {
    setup();
    expect(screen.getByRole("link", { name: /tandem/i })).toHaveAttribute("href", "/");
  });

  it.each([
    ["Features", "#features"],
    ["Join Waitlist", "#waitlist"],
  ])("on the landing page, %s is a link to %s, working before any script", (name, href) => {
    setup();
    expect(within(screen.getByRole("navigation", { name: "Main" })).getByRole("link", { name })).toHaveAttribute(
      "href",
      href,
    );
  });

  it.each([
    ["Features", "/#features", "features"],
    ["Join Waitlist", "/#waitlist", "waitlist"],
  ])("on another page, %s leads to %s, carrying the scroll intent", (name, href, section) => {
    setup({ onLanding: false });
    expect(within(screen.getByRole("navigation", { name: "Main" })).getByRole("link", { name })).toHaveAttribute(
      "href",
      href,
    );
    expect(Link).toHaveBeenCalledWith(expect.objectContaining({ to: href, state: { scrollTo: section } }), {});
  });

  it("moves focus to the section a link names", async () => {
    const { user } = setup();
    await user.click(within(screen.getByRole("navigation", { name: "Main" })).getByRole("link", { name: "Features" }));
    expect(document.activeElement).toBe(document.getElementById("features"));
  });

  it("has a native disclosure as its mobile menu, closed at first", () => {
    const { menu, toggle, panel } = setup();
    expect(menu.tagName).toBe("DETAILS");
    expect(toggle.parentElement).toBe(menu);
    expect(menu.open).toBe(false);
    expect(panel).not.toBeVisible();
    expect(
      within(panel)
        .getAllByRole("link", { hidden: true })
        .map((link) => link.getAttribute("href")),
    ).toEqual(["#features", "#waitlist"]);
  });

  it("opens and closes with the toggle", async () => {
    const { user, menu, toggle, panel } = setup();
    await user.click(toggle);
    expect(menu.open).toBe(true);
    expect(panel).toBeVisible();
    await user.click(toggle);
    expect(menu.open).toBe(false);
    expect(panel).not.toBeVisible();
  });

  it.each([
    ["Features", "features"],
    ["Join Waitlist", "waitlist"],
  ])("choosing %s closes the menu and focuses #%s", async (name, id) => {
    const { user, menu, toggle, panel } = setup();
    await user.click(toggle);
    await user.click(within(panel).getByRole("link", { name }));
    expect(menu.open).toBe(false);
    expect(document.activeElement).toBe(document.getElementById(id));
  });

  it("closes on Escape and gives focus back to the toggle", async () => {
    const { user, menu, toggle, panel } = setup();
    await user.click(toggle);
    await waitFor(() => expect(menu.open).toBe(true));
    await user.tab();
    expect(within(panel).getByRole("link", { name: "Features" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(menu.open).toBe(false);
    expect(toggle).toHaveFocus();
  });

  it("closes on an Escape pressed the instant after it opened, before its toggle event", () => {
    const { menu, toggle } = setup();
    toggle.click();
    expect(menu.open).toBe(true);
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "Escape" });
    expect(menu.open).toBe(false);
  });

  it("closes when the visitor taps outside it", async () => {
    const { user, menu, toggle } = setup();
    await user.click(toggle);
    await user.click(screen.getByText("Outside"));
    expect(menu.open).toBe(false);
  });

  it("leaves Escape and taps alone while the menu is closed", async () => {
    const { user, menu, toggle } = setup();
    await user.click(toggle);
    await user.click(toggle);
    toggle.focus();
    await user.keyboard("{Escape}");
    await user.click(screen.getByText("Outside"));
    expect(menu.open).toBe(false);
    // Reopening still works: nothing stale closed it again.
    await user.click(toggle);
    expect(menu.open).toBe(true);
  });

  it("takes over a menu the visitor opened before the page hydrated", async () => {
    const user = userEvent.setup();
    // The markup the server rendered (a client render gives the same), not yet hydrated.
    const { container: rendered, unmount } = render(<Header onLanding />);
    const container = document.createElement("div");
    container.innerHTML = rendered.innerHTML;
    unmount();
    document.body.append(container);
    const menu = container.querySelector("details")!;
    menu.open = true;
    // Its native toggle event fires before the bundles arrive, with nothing listening yet.
    await new Promise((resolve) => menu.addEventListener("toggle", resolve, { once: true }));
    // React's development build warns of the `open` it didn't render, and keeps it; that warning and no other.
    // The site hydrates with Preact, which keeps it without a word.
    const logged = jest.spyOn(console, "error").mockImplementation(() => {});
    try {
      await act(async () => {
        hydrateRoot(container, <Header onLanding />);
      });
      expect(logged.mock.calls.map(([format, ...values]) => [String(format), ...values])).toEqual([
        [expect.stringContaining("Extra attributes from the server"), "open", expect.any(String)],
      ]);
    } finally {
      logged.mockRestore();
    }
    await user.keyboard("{Escape}");
    expect(menu.open).toBe(false);
    expect(container.querySelector("summary")).toHaveFocus();
  });
});
