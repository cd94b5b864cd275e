import { site } from "../../config/site";
import { isAcceptableEmail } from "./email-precheck";
import { submitWaitlist, waitlistBody, type WaitlistFields } from "./waitlist-request";
import { waitlistReducer, type WaitlistAction, type WaitlistMessages, type WaitlistState } from "./waitlist-state";

/*
 * The waitlist form's behaviour: the spec's messages, states, 7 s reset and
 * focus. It runs from the first paint, not from hydration: gatsby-ssr.tsx
 * inlines it into the <head> of the form's page, where it listens on the document, so
 * it answers the form as soon as the page shows it, without waiting for
 * Gatsby's bundles (on the slow phone they come half a second after `load`).
 * Only the page with the form carries it: a page reached from another by
 * client-side navigation is given it by the form's component, which loads
 * this module as a chunk of its own when the window has none
 * (src/components/waitlist-form.tsx). A browser without JavaScript, or too
 * old for this script, posts the form natively.
 *
 * enhanceWaitlistForms is serialised with toString(), as are the parts it is
 * given: none may use anything from outside its own body, and they stick to
 * ES2015, so a browser too old to parse them still gets the plain form.
 */

export interface WaitlistBehaviourSettings extends WaitlistFields {
  submitLabel: string;
  loadingLabel: string;
  messageResetMs: number;
  messages: WaitlistMessages;
}

/** The form's rules, each a module of its own with its tests, handed to the behaviour. */
export interface WaitlistBehaviourParts {
  next: typeof waitlistReducer;
  accepts: typeof isAcceptableEmail;
  body: typeof waitlistBody;
  send: typeof submitWaitlist;
}

/**
 * - Without fetch (a very old browser) it leaves the form alone: it posts
 *   natively, with the browser's validation.
 * - The first focus or click in the form turns the browser's validation off:
 *   the spec's message answers an empty or @-less address, not the browser's
 *   bubble. Should the browser validate all the same, its `invalid` event is
 *   answered with the message too.
 * - A submit is answered here: checked, posted with fetch, and shown through
 *   the four states; a second submit while one is in flight is ignored.
 * - A message stays 7 s from the frame that shows it, unless a new state
 *   replaces it first. That frame is found as Preact finds the paint before
 *   its effects: the next animation frame, or 35 ms on when none comes (a
 *   hidden tab, a busy engine), then the task after it.
 * - When loading ends and focus fell to <body> (disabled controls drop it),
 *   it goes back to the input.
 * Installs once per window; its comments stay out of the body, which every
 * page carries inline.
 */
export function enhanceWaitlistForms(settings: WaitlistBehaviourSettings, parts: WaitlistBehaviourParts): void {
  const win = window as unknown as { __waitlistForms?: boolean };
  if (win.__waitlistForms || typeof WeakMap !== "function" || !("closest" in Element.prototype)) return;
  win.__waitlistForms = true;

  interface Live {
    state: WaitlistState;
    version: number;
    timer?: ReturnType<typeof setTimeout>;
  }
  const forms = new WeakMap<HTMLFormElement, Live>();

  const waitlistForm = (node: EventTarget | null): HTMLFormElement | null => {
    const form = typeof fetch === "function" && node instanceof Element ? node.closest("form") : null;
    return form && form.getAttribute("name") === settings.formName ? form : null;
  };
  const field = (form: HTMLFormElement, name: string) => form.querySelector<HTMLInputElement>(`[name="${name}"]`);

  const show = (form: HTMLFormElement, state: WaitlistState) => {
    const input = field(form, settings.emailField);
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    const status = form.querySelector("[role=status]");
    if (!input || !button || !status) return;
    const loading = state.status === "loading";
    input.disabled = loading;
    button.disabled = loading;
    button.textContent = loading ? settings.loadingLabel : settings.submitLabel;
    if (state.invalid) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    status.textContent = state.message || "";
    if (state.status === "success" || state.status === "error") status.setAttribute("data-tone", state.status);
    else status.removeAttribute("data-tone");
  };

  const afterPaint = (callback: () => void) => {
    let frame = 0;
    const done = () => {
      clearTimeout(fallback);
      cancelAnimationFrame(frame);
      setTimeout(callback);
    };
    const fallback = setTimeout(done, 35);
    frame = requestAnimationFrame(done);
  };

  const dispatch = (form: HTMLFormElement, action: WaitlistAction) => {
    let live = forms.get(form);
    if (!live) {
      live = { state: { status: "idle", message: null, invalid: false }, version: 0 };
      forms.set(form, live);
    }
    const state = parts.next(live.state, action, settings.messages);
    if (state === live.state) return;
    const wasLoading = live.state.status === "loading";
    live.state = state;
    const version = ++live.version;
    clearTimeout(live.timer);
    show(form, state);
    if (wasLoading && (document.activeElement === document.body || document.activeElement === null)) {
      const input = field(form, settings.emailField);
      if (input) input.focus();
    }
    const current = live;
    if (state.message !== null) {
      afterPaint(() => {
        if (current.version === version) {
          current.timer = setTimeout(() => dispatch(form, { type: "reset" }), settings.messageResetMs);
        }
      });
    }
  };

  const submit = (form: HTMLFormElement) => {
    const live = forms.get(form);
    if (live && live.state.status === "loading") return;
    const input = field(form, settings.emailField);
    const honeypot = field(form, settings.honeypotField);
    const email = input ? input.value.trim() : "";
    if (!parts.accepts(email, input)) {
      dispatch(form, { type: "rejected" });
      return;
    }
    const body = parts.body(settings, email, honeypot ? honeypot.value : "");
    dispatch(form, { type: "submitted" });
    void parts.send(settings, body, fetch).then((outcome) => {
      if (outcome === "ok" && input) input.value = "";
      dispatch(form, { type: "settled", outcome });
    });
  };

  const takeOver = (event: Event) => {
    const form = waitlistForm(event.target);
    if (form) form.noValidate = true;
  };
  document.addEventListener("focusin", takeOver, true);
  document.addEventListener("click", takeOver, true);
  const answer = (event: Event) => {
    const form = waitlistForm(event.target);
    if (!form) return;
    event.preventDefault();
    form.noValidate = true;
    submit(form);
  };
  document.addEventListener("invalid", answer, true);
  document.addEventListener("submit", answer, true);
}

/** The parts, as the page's script is given them (waitlistBehaviourScript) and as a bundle gives them. */
export const waitlistBehaviourParts: WaitlistBehaviourParts = {
  next: waitlistReducer,
  accepts: isAcceptableEmail,
  body: waitlistBody,
  send: submitWaitlist,
};

/** The form's settings, from config/site.ts. */
export function waitlistBehaviourSettings(): WaitlistBehaviourSettings {
  const { formName, emailField, honeypotField, endpoint, submitLabel, loadingLabel, messageResetMs, messages } =
    site.waitlist;
  return { formName, emailField, honeypotField, endpoint, submitLabel, loadingLabel, messageResetMs, messages };
}

/** The inline script for gatsby-ssr.tsx: the behaviour, its parts and its settings. */
export function waitlistBehaviourScript(settings = waitlistBehaviourSettings()): string {
  // The settings are text in a <script>: no "</script>" may end it early.
  const json = JSON.stringify(settings).replace(/</g, "\\u003c");
  const { next, accepts, body, send } = waitlistBehaviourParts;
  const parts = `{next:${next},accepts:${accepts},body:${body},send:${send}}`;
  return `(${enhanceWaitlistForms})(${json},${parts});`;
}
