import userEvent from "@testing-library/user-event";
import { earlySubmitScript, takeEarlySubmit } from "./early-submit";

/*
 * Runs the very text gatsby-ssr.tsx inlines into each page (so it must work
 * without anything around it), against a form like the prerendered one.
 * jsdom cannot navigate: a test listener at the form records whether a
 * submit got through to the browser's own post, then stops it.
 */

function page(fallbackMs = 5000) {
  document.body.innerHTML = `
    <form name="waitlist" method="POST" action="/">
      <input type="email" name="email" required>
      <button type="submit">Join Waitlist</button>
    </form>
    <form name="other"><button type="submit">Other</button></form>`;
  delete (window as unknown as { __earlySubmit?: unknown }).__earlySubmit;
  new Function(earlySubmitScript("waitlist", fallbackMs))();
  const form = document.forms.namedItem("waitlist")!;
  const posted: boolean[] = [];
  form.addEventListener("submit", (event) => {
    posted.push(!event.defaultPrevented);
    event.preventDefault();
  });
  return {
    form,
    input: form.querySelector("input")!,
    button: form.querySelector("button")!,
    posted,
  };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => {
  takeEarlySubmit();
  jest.useRealTimers();
});

describe("the inline early-submit capture", () => {
  it("holds back a submit made before hydration, even an empty one, and hands it to the form", () => {
    const { form, button, posted } = page();
    button.click();
    // The browser's validation is off, so the spec's message can answer the empty field.
    expect(form.noValidate).toBe(true);
    expect(posted).toEqual([false]);
    expect(takeEarlySubmit()).toBe(form);
  });

  it("holds back Enter in the empty field too (implicit submission clicks the button)", async () => {
    const { form, input, posted } = page();
    await userEvent.setup({ advanceTimers: jest.advanceTimersByTime }).type(input, "{Enter}");
    expect(form.noValidate).toBe(true);
    expect(posted).toEqual([false]);
    expect(takeEarlySubmit()).toBe(form);
  });

  it("stands down once the form claimed it: later submits are the form's own", () => {
    const { form, button, posted } = page();
    expect(takeEarlySubmit()).toBeNull();
    form.noValidate = true;
    button.click();
    expect(posted).toEqual([true]);
    expect(takeEarlySubmit()).toBeNull();
  });

  it("leaves other forms alone", () => {
    page();
    const other = document.forms.namedItem("other")!;
    let prevented: boolean | undefined;
    other.addEventListener("submit", (event) => {
      prevented = event.defaultPrevented;
      event.preventDefault();
    });
    other.querySelector("button")!.click();
    expect(prevented).toBe(false);
  });

  it("posts natively, validation on, when nothing claims the submit in time", () => {
    const { form, input, button, posted } = page(5000);
    input.value = "slow@example.com";
    button.click();
    jest.advanceTimersByTime(4999);
    expect(posted).toEqual([false]);
    jest.advanceTimersByTime(1);
    expect(form.noValidate).toBe(false);
    expect(posted).toEqual([false, true]);
    // The form hydrating now finds nothing left to answer.
    expect(takeEarlySubmit()).toBeNull();
  });

  it("gives the browser's bubble back for an invalid value it posts natively", () => {
    const { form, button, posted } = page(5000);
    button.click();
    jest.advanceTimersByTime(5000);
    // requestSubmit validates first: the empty required field stops the post.
    expect(form.noValidate).toBe(false);
    expect(posted).toEqual([false]);
  });

  it("posts at once when a script fails to load, since the form will never hydrate", () => {
    const { input, button, posted } = page();
    input.value = "offline@example.com";
    button.click();
    const script = document.createElement("script");
    document.body.append(script);
    script.dispatchEvent(new Event("error"));
    expect(posted).toEqual([false, true]);
  });

  it("keeps only the last submit, and restarts the wait with it", () => {
    const { form, input, button, posted } = page(5000);
    input.value = "first@example.com";
    button.click();
    jest.advanceTimersByTime(4000);
    input.value = "second@example.com";
    button.click();
    jest.advanceTimersByTime(4000);
    expect(posted).toEqual([false, false]);
    expect(takeEarlySubmit()).toBe(form);
  });
});
