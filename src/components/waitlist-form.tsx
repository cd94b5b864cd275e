import React, { useEffect } from "react";
import { site } from "../../config/site";
import * as styles from "./waitlist-form.module.css";

const { formName, honeypotField, emailField, endpoint, submitLabel } = site.waitlist;

const inputId = "waitlist-email";
const messageId = "waitlist-message";

/**
 * The early-access form. The server-rendered markup is a plain form that
 * posts to the site's root, which visitors without JavaScript can use. Its
 * behaviour, the spec's messages and states, is not this component's: the
 * page's inline script (src/lib/waitlist-behaviour.ts) answers it from the
 * first paint, long before the bundles hydrate it.
 *
 * So that hydration leaves what that script shows, the two texts it changes
 * (the button's label and the message) are given as inner HTML, which
 * Preact's hydration and React's renders leave as they find it, and the
 * component holds no state that could render the form anew.
 *
 * Only the page with the form carries that script. When a visitor comes from
 * another page by client-side navigation, the window has none: the component
 * then loads the same module, as a chunk of its own, and installs it. Until
 * it has, or if it never comes, a submit posts natively, as without JavaScript.
 */
export function WaitlistForm() {
  useEffect(() => {
    if ((window as unknown as { __waitlistForms?: boolean }).__waitlistForms) return;
    import("../lib/waitlist-behaviour").then(
      ({ enhanceWaitlistForms, waitlistBehaviourSettings, waitlistBehaviourParts }) =>
        enhanceWaitlistForms(waitlistBehaviourSettings(), waitlistBehaviourParts),
      // A chunk that never comes (the connection dropped) leaves the form native: it still posts.
      () => {},
    );
  }, []);

  return (
    <form name={formName} method="POST" action={endpoint} className={styles.form}>
      <input type="hidden" name="form-name" value={formName} />
      <p className={styles.honeypot} aria-hidden="true">
        <label>
          Leave this field empty
          <input name={honeypotField} tabIndex={-1} autoComplete="off" />
        </label>
      </p>
      <label htmlFor={inputId} className={styles.label}>
        Email address
      </label>
      <div className={styles.row}>
        <input
          id={inputId}
          className={styles.input}
          type="email"
          name={emailField}
          required
          autoComplete="email"
          inputMode="email"
          placeholder="you@example.com"
          aria-describedby={messageId}
        />
        <button
          type="submit"
          className={`btn btn-primary btn-large ${styles.submit}`}
          dangerouslySetInnerHTML={{ __html: submitLabel }}
        />
      </div>
      <p
        id={messageId}
        className={styles.message}
        role="status"
        aria-live="polite"
        dangerouslySetInnerHTML={{ __html: "" }}
      />
    </form>
  );
}
