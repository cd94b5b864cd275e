import React, { useEffect, useReducer, useRef, useState, type FormEvent } from "react";
import { site } from "../../config/site";
import { isAcceptableEmail } from "../lib/email-precheck";
import { takeEarlySubmit } from "../lib/early-submit";
import { submitWaitlist } from "../lib/waitlist-request";
import { initialWaitlistState, waitlistReducer } from "../lib/waitlist-state";
import { useIsomorphicLayoutEffect } from "./use-isomorphic-layout-effect";
import * as styles from "./waitlist-form.module.css";

const { formName, honeypotField, emailField, endpoint, messageResetMs, submitLabel, loadingLabel } = site.waitlist;

const inputId = "waitlist-email";
const messageId = "waitlist-message";

/**
 * The early-access form. The server-rendered markup is a plain form that
 * posts to the site's root, which visitors without JavaScript can use; once
 * hydrated, it submits with fetch and shows the spec's messages instead. A
 * submit made before hydration was held back by the page's inline capture
 * (src/lib/early-submit.ts) and is answered the moment the form hydrates.
 */
export function WaitlistForm() {
  const [state, dispatch] = useReducer(waitlistReducer, initialWaitlistState);
  const [enhanced, setEnhanced] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const honeypotRef = useRef<HTMLInputElement>(null);
  const loading = state.status === "loading";

  // Every message disappears after 7 s; a new state (a new submission) cancels the pending reset. The 7 s count
  // from the paint that shows it: a passive effect runs after that paint (a layout effect runs before it, and on a
  // CPU throttled x6 the message then showed for as little as 6.95 s).
  useEffect(() => {
    if (state.message === null) return;
    const timer = setTimeout(() => dispatch({ type: "reset" }), messageResetMs);
    return () => clearTimeout(timer);
  }, [state]);

  // Disabling the focused control drops focus to <body>; give it back to the input.
  const wasLoading = useRef(false);
  useEffect(() => {
    if (wasLoading.current && !loading && document.activeElement === document.body) inputRef.current?.focus();
    wasLoading.current = loading;
  }, [loading]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!loading) void submit();
  }

  async function submit() {
    const input = inputRef.current;
    const email = input?.value.trim() ?? "";
    if (!isAcceptableEmail(email, input)) {
      dispatch({ type: "rejected" });
      return;
    }
    dispatch({ type: "submitted" });
    const outcome = await submitWaitlist(email, { honeypot: honeypotRef.current?.value ?? "" });
    if (outcome === "ok" && input) input.value = "";
    dispatch({ type: "settled", outcome });
  }

  // On hydration, in one layout effect so no event can fall in between: the spec's message replaces the
  // browser's own validation bubble from now on, and a submit held back before hydration is answered.
  useIsomorphicLayoutEffect(() => {
    setEnhanced(true);
    if (formRef.current && takeEarlySubmit() === formRef.current) void submit();
    // Once, on hydration; submit reads everything it needs from the DOM and the reducer's dispatch.
  }, []);

  const tone = state.status === "success" ? styles.success : state.status === "error" ? styles.error : "";

  return (
    <form
      ref={formRef}
      name={formName}
      method="POST"
      action={endpoint}
      // The page's early-submit capture may turn validation off before hydration; Preact's hydration leaves it.
      noValidate={enhanced}
      onSubmit={onSubmit}
      className={styles.form}
    >
      <input type="hidden" name="form-name" value={formName} />
      <p className={styles.honeypot} aria-hidden="true">
        <label>
          Leave this field empty
          <input ref={honeypotRef} name={honeypotField} tabIndex={-1} autoComplete="off" />
        </label>
      </p>
      <label htmlFor={inputId} className={styles.label}>
        Email address
      </label>
      <div className={styles.row}>
        <input
          ref={inputRef}
          id={inputId}
          className={styles.input}
          type="email"
          name={emailField}
          required
          autoComplete="email"
          inputMode="email"
          placeholder="you@example.com"
          disabled={loading}
          aria-invalid={state.invalid || undefined}
          aria-describedby={messageId}
        />
        <button type="submit" className={`btn btn-primary btn-large ${styles.submit}`} disabled={loading}>
          {loading ? loadingLabel : submitLabel}
        </button>
      </div>
      <p id={messageId} className={`${styles.message} ${tone}`} role="status" aria-live="polite">
        {state.message}
      </p>
    </form>
  );
}
