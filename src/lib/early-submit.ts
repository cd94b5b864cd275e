/*
 * A waitlist submit made before Gatsby's bundles have hydrated the form must
 * not be lost, nor answered with the browser's own validation bubble instead
 * of the spec's message. gatsby-ssr.tsx inlines captureEarlySubmits into every
 * page's <head>: it holds such a submit back until the form hydrates and
 * claims it (takeEarlySubmit), so the one implementation of the form's
 * behaviour, the React component, answers it. Should the bundles never come
 * (a script failed to load, or nothing claimed the submit in time), it posts
 * the form natively, exactly as it would without JavaScript.
 *
 * captureEarlySubmits is serialised with toString(): it must not use anything
 * from outside its own body, and it sticks to ES2015 (no optional chaining), so
 * a browser too old to parse it still gets the plain form.
 */

/** What the inline capture shares with the form, on window.__earlySubmit. */
export interface EarlySubmitQueue {
  /** The form whose submit is held back, if any. */
  pending: HTMLFormElement | null;
  /** Set once the form took over, or the capture gave up and posted natively: the capture stands down. */
  done: boolean;
  claim(): HTMLFormElement | null;
}

/**
 * - A click on the form's submit button (Enter in the field clicks it too)
 *   turns the browser's validation off before it runs: the form answers an
 *   empty or @-less address with the spec's message, not the browser's bubble.
 * - The submit is held back (preventDefault) until the form claims it.
 * - Unclaimed after fallbackMs, or as soon as a script fails to load (the form
 *   will never hydrate), it gives up: validation back on, and the form posts
 *   natively, as without JavaScript.
 * Its comments stay out of the body, which every page carries inline.
 */
function captureEarlySubmits(formName: string, fallbackMs: number): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const queue: EarlySubmitQueue = {
    pending: null,
    done: false,
    claim: () => {
      if (queue.done) return null;
      queue.done = true;
      clearTimeout(timer);
      return queue.pending;
    },
  };
  (window as unknown as { __earlySubmit: EarlySubmitQueue }).__earlySubmit = queue;

  const waitlistForm = (node: EventTarget | null): HTMLFormElement | null => {
    const form = node instanceof Element ? node.closest("form") : null;
    return form && form.getAttribute("name") === formName ? form : null;
  };

  const giveUp = () => {
    if (queue.done) return;
    queue.done = true;
    clearTimeout(timer);
    const form = queue.pending;
    if (!form) return;
    form.noValidate = false;
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  };

  document.addEventListener(
    "click",
    (event) => {
      const form = queue.done ? null : waitlistForm(event.target);
      if (form && event.target instanceof Element && event.target.closest("button[type=submit]")) {
        form.noValidate = true;
      }
    },
    true,
  );
  document.addEventListener(
    "submit",
    (event) => {
      const form = queue.done ? null : waitlistForm(event.target);
      if (!form) return;
      event.preventDefault();
      queue.pending = form;
      clearTimeout(timer);
      timer = setTimeout(giveUp, fallbackMs);
    },
    true,
  );
  window.addEventListener(
    "error",
    (event) => {
      if (event.target instanceof HTMLScriptElement) giveUp();
    },
    true,
  );
}

/**
 * Called once by the hydrated form: stops the capture and returns the form
 * whose submit it held back, for the form to submit now; null if there was
 * none, or if the capture already posted it natively.
 */
export function takeEarlySubmit(win: Window = window): HTMLFormElement | null {
  const queue = (win as unknown as { __earlySubmit?: EarlySubmitQueue }).__earlySubmit;
  return queue ? queue.claim() : null;
}

/** How long a held-back submit waits for the form to hydrate before it is posted natively. */
const earlySubmitFallbackMs = 5000;

/** The inline script for gatsby-ssr.tsx. */
export function earlySubmitScript(formName: string, fallbackMs = earlySubmitFallbackMs): string {
  return `(${captureEarlySubmits.toString()})(${JSON.stringify(formName)},${fallbackMs});`;
}
