import React from "react";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { WaitlistForm } from "./waitlist-form";

/*
 * A page reached by client-side navigation from one without the form's
 * inline script (src/lib/waitlist-behaviour.ts): a window of its own here,
 * with no script run in it.
 */

it("installs the form's behaviour itself when the window has none, once however often it renders", async () => {
  const fetchImpl = jest.fn(() => new Promise<Response>(() => {}));
  globalThis.fetch = fetchImpl;
  const first = render(<WaitlistForm />);
  await waitFor(() => expect((window as unknown as { __waitlistForms?: boolean }).__waitlistForms).toBe(true));
  first.unmount();
  // The landing page again, as after Back and another navigation: the behaviour is there, and stays one.
  render(<WaitlistForm />);
  const user = userEvent.setup();
  await user.click(screen.getByRole("button", { name: "Join Waitlist" }));
  expect(screen.getByRole("status")).toHaveTextContent("Please enter a valid email address");
  await user.type(screen.getByLabelText("Email address"), "ada@example.com{Enter}");
  expect(screen.getByRole("button")).toHaveTextContent("Joining...");
  expect(fetchImpl).toHaveBeenCalledTimes(1);
});
