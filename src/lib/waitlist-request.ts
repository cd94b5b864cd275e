export type SubmitOutcome = "ok" | "server-error" | "network-error";

/** The form's fields and where it posts (config/site.ts, site.waitlist). */
export interface WaitlistFields {
  formName: string;
  emailField: string;
  honeypotField: string;
  endpoint: string;
}

/*
 * The page inlines these (src/lib/waitlist-behaviour.ts) with toString(), so
 * each uses nothing from outside its own body.
 */

/** The urlencoded body of spec section 7, identical to the native form post. */
export function waitlistBody(fields: WaitlistFields, email: string, honeypot: string): string {
  const body = new URLSearchParams();
  body.append("form-name", fields.formName);
  body.append(fields.emailField, email);
  body.append(fields.honeypotField, honeypot);
  return body.toString();
}

/**
 * POSTs one signup to the site root (the form's contract, Netlify Forms' before). Only
 * `response.ok` is read: ok is a success, anything else a server error, and a
 * rejected fetch a network error.
 */
export function submitWaitlist(fields: WaitlistFields, body: string, fetchImpl: typeof fetch): Promise<SubmitOutcome> {
  return fetchImpl(fields.endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "text/plain" },
    body,
  }).then(
    (response): SubmitOutcome => (response.ok ? "ok" : "server-error"),
    (): SubmitOutcome => "network-error",
  );
}
