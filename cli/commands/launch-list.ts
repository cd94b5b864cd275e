import type { Signup } from "../../waitlist/stores/store";

/*
 * What the launch mail tool receives (export --launch, issue 51): for each confirmed signup, the address and that
 * person's own one-click leave link, and nothing else. The Privacy Policy says so (Sharing of Information), and
 * test/content/policy-promises.test.ts holds its sentence to these columns. Everything else a signup holds is the
 * founders' own record (export --record), never a file to import.
 */

/**
 * The launch list's columns, in this order. Waves (let-in) add "wave", the number of the one the person was let in
 * with, as the policy already says; nothing else goes here.
 */
export const launchColumns = ["email", "leaveUrl"] as const;

export type LaunchRow = Record<(typeof launchColumns)[number], string>;

/**
 * Who is on the launch list: those who confirmed, in the order they signed up (the store's). Waves narrow it to the
 * people of one wave (`export --launch --wave N`), here.
 */
export function launchList(signups: readonly Signup[], leaveUrlOf: (signup: Signup) => string): LaunchRow[] {
  return signups
    .filter((signup) => signup.confirmedAt !== null)
    .map((signup) => ({ email: signup.email, leaveUrl: leaveUrlOf(signup) }));
}
