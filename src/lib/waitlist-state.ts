import { site } from "../../config/site";
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

export const initialWaitlistState: WaitlistState = { status: "idle", message: null, invalid: false };

const { messages } = site.waitlist;

const outcomeState: Record<SubmitOutcome, WaitlistState> = {
  ok: { status: "success", message: messages.success, invalid: false },
  "server-error": { status: "error", message: messages.serverError, invalid: false },
  "network-error": { status: "error", message: messages.networkError, invalid: false },
};

export function waitlistReducer(state: WaitlistState, action: WaitlistAction): WaitlistState {
  switch (action.type) {
    case "rejected":
      // A second click while a request is in flight must not hide its outcome.
      if (state.status === "loading") return state;
      return { status: "error", message: messages.invalidEmail, invalid: true };
    case "submitted":
      if (state.status === "loading") return state;
      return { status: "loading", message: null, invalid: false };
    case "settled":
      if (state.status !== "loading") return state;
      return outcomeState[action.outcome];
    case "reset":
      if (state.status === "loading") return state;
      return initialWaitlistState;
  }
}
