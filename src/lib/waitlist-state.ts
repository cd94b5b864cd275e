import type { SubmitOutcome } from "./waitlist-request";

/** The four states of spec section 4. */
export type WaitlistStatus = "idle" | "loading" | "success" | "error";

export interface WaitlistState {
  status: WaitlistStatus;
  message: string | null;
  /** True only for the client-side rejection, so the input can be marked invalid. */
  invalid: boolean;
}

export type WaitlistAction =
  { type: "rejected" } | { type: "submitted" } | { type: "settled"; outcome: SubmitOutcome } | { type: "reset" };

/** The spec's four messages (config/site.ts, site.waitlist.messages). */
export interface WaitlistMessages {
  invalidEmail: string;
  serverError: string;
  networkError: string;
  success: string;
}

export const initialWaitlistState: WaitlistState = { status: "idle", message: null, invalid: false };

/**
 * The form's next state. While a request is in flight nothing but its
 * outcome changes it: a second click must not hide that outcome. The page
 * inlines it (src/lib/waitlist-behaviour.ts) with toString(), so it uses
 * nothing from outside its own body, sticks to ES2015, and keeps its comments
 * out of its body.
 */
export function waitlistReducer(
  state: WaitlistState,
  action: WaitlistAction,
  messages: WaitlistMessages,
): WaitlistState {
  const idle = { status: "idle", message: null, invalid: false } as const;
  switch (action.type) {
    case "rejected":
      if (state.status === "loading") return state;
      return { status: "error", message: messages.invalidEmail, invalid: true };
    case "submitted":
      if (state.status === "loading") return state;
      return { status: "loading", message: null, invalid: false };
    case "settled":
      if (state.status !== "loading") return state;
      if (action.outcome === "ok") return { status: "success", message: messages.success, invalid: false };
      return {
        status: "error",
        message: action.outcome === "network-error" ? messages.networkError : messages.serverError,
        invalid: false,
      };
    case "reset":
      if (state.status === "loading") return state;
      return idle;
  }
}
