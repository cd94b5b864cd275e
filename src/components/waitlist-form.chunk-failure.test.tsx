import React from "react";
import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { WaitlistForm } from "./waitlist-form";

/*
 * A client-side navigation to the landing page on a connection that drops:
 * the chunk with the form's behaviour never comes. Its import fails as
 * webpack's does, with a ChunkLoadError.
 */
jest.mock("../lib/waitlist-behaviour", () => {
  throw Object.assign(new Error("Loading chunk 412 failed."), { name: "ChunkLoadError" });
});

it("leaves the form native, for the browser to check and post, and logs no unhandled rejection", async () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", record);
  try {
    render(<WaitlistForm />);
    // Let the failed import settle, and Node report a rejection nobody handled.
    await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
    expect(unhandled).toEqual([]);
    expect((window as unknown as { __waitlistForms?: boolean }).__waitlistForms).toBeUndefined();

    const form = screen.getByRole("button", { name: "Join Waitlist" }).closest("form")!;
    // The browser's own validation stays on, and nothing on the page answers the tap in its place.
    await userEvent.setup().click(screen.getByRole("button", { name: "Join Waitlist" }));
    expect(form.noValidate).toBe(false);
    expect(screen.getByLabelText("Email address")).toBeInvalid();
    expect(screen.getByRole("status")).toBeEmptyDOMElement();
    expect(form).toHaveAttribute("action", "/");
    expect(form).toHaveAttribute("method", "POST");
  } finally {
    process.off("unhandledRejection", record);
  }
});
