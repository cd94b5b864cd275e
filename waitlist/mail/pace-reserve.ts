import type { MailDay } from "../signup-life/types";
import type { MailBookkeeping } from "../stores/store";
import { nextUtcDay, utcDay } from "./pace-shards";

/*
 * Confirmations first: a wave's "You're in" and a policy's announcement never take the share of the day's quota that
 * the day's new signups need for their confirmations. On Resend's 100 a day, a wave of 100 would otherwise leave the
 * day's signups unmailed until the next. Only a provider with a daily limit has one; each shard keeps its share of it
 * beside its share of the day (pace.ts).
 */

/** What a message is, for the reserve: a confirmation may use the whole day; any other kind, not the reserve. */
export type { MailKind } from "../signup-life/rules";

/** The days the default reserve looks back on, before today. */
const reserveDays = 7;

/**
 * The reserve a day keeps for confirmations when the founders name none: what the busiest of the last 7 days sent
 * (the store's day figures, which count every kind: a day of a wave reserves more than its confirmations needed, the
 * safe side), never more than half the daily limit, so a wave always has half the day; and at least a floor of a
 * tenth of the daily limit and 20, for a site with no history yet (a launch's first day).
 */
export function defaultReserve(dailyLimit: number, days: readonly MailDay[]): number {
  const floor = Math.max(20, Math.ceil(dailyLimit / 10));
  const busiest = Math.max(0, ...days.map((one) => one.sent));
  return Math.min(dailyLimit, Math.max(floor, Math.min(busiest, Math.floor(dailyLimit / 2))));
}

/**
 * The reserve of the day, as the pace's options give it or read once a UTC day from the store's day figures (one
 * read of seven days' figures, only by a sender of another kind than confirmations: never on a signup's path).
 */
export function reserveOfTheDay({
  store,
  dailyLimit,
  reserve,
}: {
  store: Pick<MailBookkeeping, "mailDays">;
  dailyLimit: number | null;
  reserve?: number;
}): (now: number) => Promise<number> {
  let known: { day: string; reserve: number } | undefined;
  return async (now) => {
    if (dailyLimit === null) return 0;
    if (reserve !== undefined) return Math.min(reserve, dailyLimit);
    const day = utcDay(now);
    if (known?.day !== day) {
      const from = utcDay(now - reserveDays * 86_400_000);
      const days = (await store.mailDays(from)).filter((one) => one.day < day);
      known = { day, reserve: defaultReserve(dailyLimit, days) };
    }
    return known.reserve;
  };
}

/** The refusal of a start to a kind that would eat into the reserve: until the next UTC day. */
export const reserveRefusal = (now: number) => ({
  go: false as const,
  until: nextUtcDay(now),
  reason: "reserve" as const,
});
