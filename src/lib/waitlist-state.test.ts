import { site } from "../../config/site";
import {
  initialWaitlistState,
  waitlistReducer as reduce,
  type WaitlistAction,
  type WaitlistState,
} from "./waitlist-state";

const waitlistReducer = (state: WaitlistState, action: WaitlistAction) => reduce(state, action, site.waitlist.messages);

const loading: WaitlistState = { status: "loading", message: null, invalid: false };

describe("waitlistReducer", () => {
  it("starts idle with no message", () => {
    expect(initialWaitlistState).toEqual({ status: "idle", message: null, invalid: false });
  });

  it("moves idle to loading on submit and clears any message", () => {
    const error = waitlistReducer(initialWaitlistState, { type: "rejected" });
    expect(waitlistReducer(initialWaitlistState, { type: "submitted" })).toEqual(loading);
    expect(waitlistReducer(error, { type: "submitted" })).toEqual(loading);
  });

  it("rejects an invalid address into the error state with the client message", () => {
    expect(waitlistReducer(initialWaitlistState, { type: "rejected" })).toEqual({
      status: "error",
      message: "Please enter a valid email address",
      invalid: true,
    });
  });

  it.each([
    ["ok", "success", "Welcome to the waitlist! Check your email for a confirmation message."],
    ["server-error", "error", "Something went wrong. Please try again."],
    ["network-error", "error", "Unable to connect. Please check your connection and try again."],
  ] as const)("settles a %s outcome as %s with the spec's message", (outcome, status, message) => {
    expect(waitlistReducer(loading, { type: "settled", outcome })).toEqual({ status, message, invalid: false });
  });

  it("returns to idle on reset", () => {
    const success = waitlistReducer(loading, { type: "settled", outcome: "ok" });
    expect(waitlistReducer(success, { type: "reset" })).toEqual(initialWaitlistState);
  });

  it("ignores a second submit, a rejection or a reset while loading", () => {
    expect(waitlistReducer(loading, { type: "submitted" })).toBe(loading);
    expect(waitlistReducer(loading, { type: "rejected" })).toBe(loading);
    expect(waitlistReducer(loading, { type: "reset" })).toBe(loading);
  });

  it("ignores a late result when no request is pending", () => {
    expect(waitlistReducer(initialWaitlistState, { type: "settled", outcome: "ok" })).toBe(initialWaitlistState);
  });
});
