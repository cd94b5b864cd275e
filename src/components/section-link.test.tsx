import React from "react";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { SectionLink } from "./section-link";

function setup() {
  const onClick = jest.fn();
  render(
    <>
      <SectionLink section="waitlist" onLanding onClick={onClick}>
        Join
      </SectionLink>
      <section id="waitlist" tabIndex={-1} />
    </>,
  );
  return { onClick, link: screen.getByRole("link", { name: "Join" }) };
}

describe("SectionLink on the landing page", () => {
  it("runs its onClick and moves focus to the section on a plain click", async () => {
    const { onClick, link } = setup();
    await userEvent.click(link);
    expect(onClick).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(document.getElementById("waitlist"));
  });

  it.each(["{Control>}", "{Meta>}", "{Shift>}"])(
    "leaves focus alone on %s-click (a new tab or window)",
    async (key) => {
      const { link } = setup();
      const user = userEvent.setup();
      await user.keyboard(key);
      await user.click(link);
      expect(document.activeElement).not.toBe(document.getElementById("waitlist"));
    },
  );
});
