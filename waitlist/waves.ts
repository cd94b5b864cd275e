import { invitesByCode, launchToolRetentionMs, mayBeLetIn } from "./signup-life/rules";
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

/** A wave handed to the launch tool (let-in --launch-tool): when its first person was let in, and how long ago. */
export interface LaunchToolWave {
  wave: number;
  letInAt: string;
  daysAgo: number;
}

/**
 * The waves handed to the launch tool longer ago than the tool may keep one (site.waitlist.launchToolRetentionDays
 * after its e-mail, which goes after the wave is let in): each to be deleted there by now, oldest first. Read from
 * those still listed: a wave whose people all left since is not known here.
 */
export function launchToolWavesDue(
  signups: readonly Pick<Signup, "wave" | "letInAt" | "letInMail">[],
  now: Date,
): LaunchToolWave[] {
  const first = new Map<number, string>();
  for (const { wave, letInAt, letInMail } of signups) {
    if (wave === null || letInAt === null || letInMail !== "launch-tool") continue;
    if (!first.has(wave) || letInAt < first.get(wave)!) first.set(wave, letInAt);
  }
  return [...first]
    .filter(([, letInAt]) => now.getTime() - Date.parse(letInAt) > launchToolRetentionMs)
    .sort(([a], [b]) => a - b)
    .map(([wave, letInAt]) => ({
      wave,
      letInAt,
      daysAgo: Math.floor((now.getTime() - Date.parse(letInAt)) / 86_400_000),
    }));
}
