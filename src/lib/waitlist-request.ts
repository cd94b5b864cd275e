import { site } from "../../config/site";

export type SubmitOutcome = "ok" | "server-error" | "network-error";

const { formName, honeypotField, emailField, endpoint } = site.waitlist;

/** The urlencoded body of spec section 7, identical to the native form post. */
export function waitlistBody(email: string, honeypot = ""): string {
  return new URLSearchParams({
    "form-name": formName,
    [emailField]: email,
    [honeypotField]: honeypot,
  }).toString();
}

/**
 * POSTs one signup to the site root (the form's contract, Netlify Forms' before). Only
 * `response.ok` is read: ok is a success, anything else a server error, and a
 * rejected fetch a network error.
 */
export async function submitWaitlist(
  email: string,
  { honeypot = "", fetchImpl = globalThis.fetch }: { honeypot?: string; fetchImpl?: typeof fetch } = {},
): Promise<SubmitOutcome> {
  try {
    const response = await fetchImpl(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "text/plain" },
      body: waitlistBody(email, honeypot),
    });
    return response.ok ? "ok" : "server-error";
  } catch {
    return "network-error";
  }
}
