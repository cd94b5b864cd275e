import { invitesByCode, mayBeLetIn } from "./signup-life/rules";
import type { Signup } from "./signup-life/types";

/*
 * Who a wave lets in at launch (npm run waitlist -- let-in): the next confirmed signups in no wave yet, in one of the
 * two orders the Privacy Policy names ("Letting you in"). A leaver's record is gone, so they are in none; one who
 * joins again is a new signup, in no wave, and starts over.
 */

export const waveOrders = ["signup", "invites"] as const;
export type WaveOrder = (typeof waveOrders)[number];

/**
 * How a ranking by invites counts each signup's confirmed invites: signup-life's count of the invites that count (one
 * per mailbox, never their own), and none for one who objected to being ranked so (object-to-ranking). `signups` is
 * the whole list.
 */
export function rankingInvites(signups: readonly Signup[]): (signup: Signup) => number {
  const invites = invitesByCode(signups);
  return (signup) =>
    signup.rankingObjectedAt === null ? (signup.inviteCode && invites.get(signup.inviteCode)) || 0 : 0;
}

/**
 * The next `count` to let in, in `order`: by signup, first come, first served; by invites, those who brought the
 * most confirmed creators first, as rankingInvites counts them, ties by who signed up first.
 * `signups` is the whole list, oldest first, as the stores give it; each chosen comes with its invites count. `skip`
 * leaves out more (whose mailbox the mail must not reach: cli/commands/let-in.ts), yet their invites count as before.
 */
export function chooseWave(
  signups: readonly Signup[],
  { count, order, skip = () => false }: { count: number; order: WaveOrder; skip?: (signup: Signup) => boolean },
): { signup: Signup; confirmedInvites: number }[] {
  const ranked = rankingInvites(signups);
  const waiting = signups
    .filter((signup) => mayBeLetIn(signup) && !skip(signup))
    .map((signup) => ({ signup, confirmedInvites: ranked(signup) }))
    .sort((a, b) => a.signup.createdAt.localeCompare(b.signup.createdAt));
  // A stable sort: among as many invites, the order of signup stays.
  if (order === "invites") waiting.sort((a, b) => b.confirmedInvites - a.confirmedInvites);
  return waiting.slice(0, count);
}

/** The wave after the newest any listed signup is in (the store's once() keeps a number from being used twice). */
export const nextWave = (signups: readonly Signup[]) =>
  signups.reduce((newest, signup) => Math.max(newest, signup.wave ?? 0), 0) + 1;
