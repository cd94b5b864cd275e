import React from "react";
import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { hydrateRoot, type Root } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { waitlistBehaviourScript } from "../lib/waitlist-behaviour";
import { WaitlistForm } from "./waitlist-form";

/*
 * The form as a page has it: the component's markup, answered by the page's
 * inline script (src/lib/waitlist-behaviour.ts), run here as the page runs it:
 * the one string gatsby-ssr.tsx inlines, evaluated on its own.
 */
beforeAll(() => new Function(waitlistBehaviourScript())());

const SUCCESS = "Welcome to the waitlist! Check your email for a confirmation message.";
const INVALID = "Please enter a valid email address";
const SERVER = "Something went wrong. Please try again.";
const NETWORK = "Unable to connect. Please check your connection and try again.";

type FetchMock = jest.Mock<Promise<Response>, Parameters<typeof fetch>>;

/** A fetch whose reply the test releases by hand, so the loading state can be seen. */
function deferredFetch() {
  let release: (value: { ok: boolean }) => void = () => {};
  let fail: (reason: unknown) => void = () => {};
  const fetchImpl: FetchMock = jest.fn(
    (..._args: Parameters<typeof fetch>) =>
      new Promise<Response>((resolve, reject) => {
        release = (value) => resolve(value as Response);
        fail = reject;
      }),
  );
  return {
    fetchImpl,
    reply: (ok: boolean) => act(async () => release({ ok })),
    drop: () => act(async () => fail(new TypeError("Failed to fetch"))),
  };
}

/** The network, as the form meets it: the browser's fetch, stubbed for one test. */
const realFetch = globalThis.fetch;
function stubNetwork(fetchImpl: FetchMock) {
  globalThis.fetch = fetchImpl;
}
afterEach(() => {
  globalThis.fetch = realFetch;
});

function setup(fetchImpl: FetchMock) {
  stubNetwork(fetchImpl);
  const user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime });
  render(<WaitlistForm />);
  return {
    user,
    input: screen.getByLabelText("Email address") as HTMLInputElement,
    button: () => screen.getByRole("button"),
    status: screen.getByRole("status"),
  };
}

beforeEach(() => jest.useFakeTimers());

/** The next frame, and the task after it, once it is painted: a message's 7 s count from there. */
const paint = () =>
  act(() => {
    jest.advanceTimersToNextFrame();
    jest.advanceTimersByTime(1);
  });
afterEach(() => {
  jest.runOnlyPendingTimers();
  jest.useRealTimers();
});

describe("WaitlistForm markup", () => {
  it("posts to the site root, and is no Netlify Forms form (Netlify would take its posts from the function)", () => {
    const { container } = render(<WaitlistForm />);
    const form = container.querySelector("form")!;
    expect(form).toHaveAttribute("name", "waitlist");
    expect(form).toHaveAttribute("method", "POST");
    expect(form).toHaveAttribute("action", "/");
    expect(form).not.toHaveAttribute("data-netlify");
    expect(form).not.toHaveAttribute("netlify");
    expect(container.querySelector('input[type="hidden"][name="form-name"]')).toHaveValue("waitlist");
  });

  it("has a required, labelled e-mail input tied to the message region", () => {
    render(<WaitlistForm />);
    const input = screen.getByLabelText("Email address");
    expect(input).toHaveAttribute("type", "email");
    expect(input).toHaveAttribute("name", "email");
    expect(input).toBeRequired();
    expect(input).toHaveAttribute("autocomplete", "email");
    const status = screen.getByRole("status");
    expect(status).toHaveAttribute("aria-live", "polite");
    expect(input).toHaveAttribute("aria-describedby", status.id);
  });

  it("keeps the honeypot out of the tab order and the accessibility tree", () => {
    const { container } = render(<WaitlistForm />);
    const honeypot = container.querySelector('input[name="bot-field"]')!;
    expect(honeypot).toHaveAttribute("tabindex", "-1");
    expect(honeypot.closest('[aria-hidden="true"]')).not.toBeNull();
    expect(screen.queryByRole("textbox", { name: /leave this field empty/i })).toBeNull();
  });

  it("leaves the browser's own validation on until the visitor reaches the form, then hands it to the spec's message", async () => {
    const user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime });
    const { container } = render(<WaitlistForm />);
    const form = container.querySelector("form")!;
    expect(form.noValidate).toBe(false);
    // A browser without fetch keeps its own validation, and posts the form natively.
    Reflect.deleteProperty(globalThis, "fetch");
    await user.click(screen.getByLabelText("Email address"));
    expect(form.noValidate).toBe(false);
    stubNetwork(jest.fn());
    await user.click(screen.getByLabelText("Email address"));
    expect(form.noValidate).toBe(true);
  });
});

describe("WaitlistForm client-side validation", () => {
  it.each(["", "   ", "creator", "creator.example.com", "a@", "@example.com"])(
    "rejects %j with the spec's message and sends nothing",
    async (value) => {
      const fetchImpl: FetchMock = jest.fn();
      const { user, input, button, status } = setup(fetchImpl);
      if (value) await user.type(input, value);
      await user.click(button());
      expect(status).toHaveTextContent(INVALID);
      expect(input).toHaveAttribute("aria-invalid", "true");
      expect(fetchImpl).not.toHaveBeenCalled();
    },
  );

  it("answers a submit the browser validated itself (no focus or click came first) with the spec's message", () => {
    const fetchImpl: FetchMock = jest.fn();
    stubNetwork(fetchImpl);
    const { container } = render(<WaitlistForm />);
    const form = container.querySelector("form")!;
    expect(form.noValidate).toBe(false);
    act(() => form.requestSubmit());
    expect(screen.getByRole("status")).toHaveTextContent(INVALID);
    expect(form.noValidate).toBe(true);
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it("clears the invalid mark on the next valid submission", async () => {
    const { fetchImpl, reply } = deferredFetch();
    const { user, input, button } = setup(fetchImpl);
    await user.click(button());
    expect(input).toHaveAttribute("aria-invalid", "true");
    await user.type(input, "ada@example.com");
    await user.click(button());
    expect(input).not.toHaveAttribute("aria-invalid");
    await reply(true);
  });
});

describe("WaitlistForm submission", () => {
  it("shows Joining... with disabled controls while loading, then the success message", async () => {
    const { fetchImpl, reply } = deferredFetch();
    const { user, input, button, status } = setup(fetchImpl);
    await user.type(input, "  Ada@Example.com ");
    await user.click(button());

    expect(button()).toHaveTextContent("Joining...");
    expect(button()).toBeDisabled();
    expect(input).toBeDisabled();
    expect(status).toBeEmptyDOMElement();

    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe("/");
    expect(init?.method).toBe("POST");
    expect(new Headers(init?.headers).get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(String(init?.body)))).toEqual({
      "form-name": "waitlist",
      email: "Ada@Example.com",
      "bot-field": "",
    });

    await reply(true);
    expect(status).toHaveTextContent(SUCCESS);
    expect(button()).toHaveTextContent("Join Waitlist");
    expect(button()).toBeEnabled();
    expect(input).toBeEnabled();
    expect(input).toHaveValue("");
  });

  it("shows the server error on a non-ok reply and keeps the address for another try", async () => {
    const { fetchImpl, reply } = deferredFetch();
    const { user, input, button, status } = setup(fetchImpl);
    await user.type(input, "ada@example.com");
    await user.click(button());
    await reply(false);
    expect(status).toHaveTextContent(SERVER);
    expect(input).toHaveValue("ada@example.com");
    expect(input).not.toHaveAttribute("aria-invalid");
  });

  it("shows the connection message when the request fails", async () => {
    const { fetchImpl, drop } = deferredFetch();
    const { user, input, button, status } = setup(fetchImpl);
    await user.type(input, "ada@example.com");
    await user.click(button());
    await drop();
    expect(status).toHaveTextContent(NETWORK);
  });

  it("submits with Enter from the input", async () => {
    const { fetchImpl, reply } = deferredFetch();
    const { user, input, status } = setup(fetchImpl);
    await user.type(input, "ada@example.com{Enter}");
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    await reply(true);
    expect(status).toHaveTextContent(SUCCESS);
  });

  it("gives focus back to the input after the controls were disabled", async () => {
    const { fetchImpl, reply } = deferredFetch();
    const { user, input } = setup(fetchImpl);
    await user.type(input, "ada@example.com{Enter}");
    await reply(false);
    expect(input).toHaveFocus();
  });
});

describe("WaitlistForm message reset", () => {
  it.each([
    ["success", SUCCESS],
    ["error", SERVER],
  ])("clears the %s message at 7000 ms and returns to idle", async (kind, message) => {
    const { fetchImpl, reply } = deferredFetch();
    const { user, input, button, status } = setup(fetchImpl);
    await user.type(input, "ada@example.com");
    await user.click(button());
    await reply(kind === "success");
    expect(status).toHaveTextContent(message);

    await paint();
    act(() => jest.advanceTimersByTime(6999));
    expect(status).toHaveTextContent(message);
    act(() => jest.advanceTimersByTime(1));
    expect(status).toBeEmptyDOMElement();
    expect(button()).toHaveTextContent("Join Waitlist");
    expect(button()).toBeEnabled();
  });

  it("clears the client-side rejection at 7000 ms", async () => {
    const { user, button, status, input } = setup(jest.fn());
    await user.click(button());
    await paint();
    act(() => jest.advanceTimersByTime(6999));
    expect(status).toHaveTextContent(INVALID);
    act(() => jest.advanceTimersByTime(1));
    expect(status).toBeEmptyDOMElement();
    expect(input).not.toHaveAttribute("aria-invalid");
  });

  it("lets a new submission cancel a pending reset", async () => {
    const first = deferredFetch();
    const { user, input, button, status } = setup(first.fetchImpl);
    await user.click(button()); // rejected: a reset is now pending
    act(() => jest.advanceTimersByTime(5000));

    await user.type(input, "ada@example.com");
    await user.click(button()); // loading: the old reset must not fire
    act(() => jest.advanceTimersByTime(2500));
    expect(button()).toHaveTextContent("Joining...");

    await first.reply(true);
    await paint();
    act(() => jest.advanceTimersByTime(6999));
    expect(status).toHaveTextContent(SUCCESS);
    act(() => jest.advanceTimersByTime(1));
    expect(status).toBeEmptyDOMElement();
  });
});

describe("WaitlistForm before its bundles hydrate it", () => {
  const roots: Root[] = [];
  afterEach(() => act(() => roots.splice(0).forEach((root) => root.unmount())));

  /** The form as the server renders it, on a page whose inline script runs; `hydrate` does what the bundles do. */
  function prerendered(fetchImpl: FetchMock) {
    stubNetwork(fetchImpl);
    const container = document.createElement("div");
    container.innerHTML = renderToString(<WaitlistForm />);
    document.body.append(container);
    const form = container.querySelector("form")!;
    return {
      form,
      input: form.querySelector<HTMLInputElement>('input[type="email"]')!,
      button: () => within(form).getByRole("button"),
      status: within(form).getByRole("status"),
      hydrate: () => act(async () => void roots.push(hydrateRoot(container, <WaitlistForm />))),
    };
  }

  it("is answered from the first paint: an empty address gets the spec's message, a valid one is sent once", async () => {
    const { fetchImpl, reply } = deferredFetch();
    const { form, input, button, status } = prerendered(fetchImpl);
    expect(form.noValidate).toBe(false);
    act(() => button().click());
    expect(status).toHaveTextContent(INVALID);
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(fetchImpl).not.toHaveBeenCalled();
    input.value = "early@example.com";
    act(() => button().click());
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    expect(new URLSearchParams(String(fetchImpl.mock.calls[0]![1]?.body)).get("email")).toBe("early@example.com");
    expect(button()).toHaveTextContent("Joining...");
    await reply(true);
    expect(status).toHaveTextContent(SUCCESS);
  });

  it("is answered once, not twice, after hydration", async () => {
    const { fetchImpl, reply } = deferredFetch();
    const { input, button, status, hydrate } = prerendered(fetchImpl);
    await hydrate();
    expect(fetchImpl).not.toHaveBeenCalled();
    input.value = "later@example.com";
    act(() => button().click());
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    await reply(true);
    expect(status).toHaveTextContent(SUCCESS);
  });
});
