// The months' traffic (months.ts): each event of a month in the order it happens, and the figures it is built from.
import { foundersCommands } from "./founders";
import { bounces } from "./mail";

export const minute = 60_000;
export const hour = 60 * minute;
export const day = 24 * hour;
/** December 2026, from midnight UTC. */
export const monthStart = Date.UTC(2026, 11, 1);
export const monthDays = 30;
/** waitlist-sweep runs every five minutes. */
const sweepEvery = 5 * minute;
export const trickle = { perDay: 100, from: 8 * hour, to: 24 * hour };
/** The viral day: the 15th, from noon UTC. */
export const viral = { day: 14, signups: 10_000, from: 12 * hour, lasts: 6 * hour, deploys: 4 };
/** The founders' mail of the viral month, after its viral day: a let-in wave on the 20th, an announcement on the 22nd. */
export const foundersMail = { letIn: { day: 19, count: 1_000 }, announce: { day: 21 }, at: 10 * hour };
/** 3 signups in 5 confirm, between 5 and 59 minutes after they signed up; nobody whose mail bounced. */
const confirms = (index: number, email: string) => index % 5 < 3 && !bounces(email);
const confirmAfter = (index: number) => (5 + ((index * 37) % 55)) * minute;
/** The list an idle month keeps: the viral month's signups. */
export const idleListed = trickle.perDay * monthDays + viral.signups;
/** Visits to / for each signup, unless --visits-per-signup says otherwise: a landing page converts about 1 in 5. */
export const defaultVisitsPerSignup = 5;
/** The goals of the store a new site gets, in credits a month: room under the Free plan's 300. */
export const goals = { idleMonth: 10, viralMonth: 250 } as const;
/**
 * Invocations of the viral day that run at once, as Netlify runs them on instances of their own, each group at its
 * first one's time: the day's 10,000 signups and 6,000 confirmations would take an hour one at a time. On the
 * simulated clock each still takes its own time, as on an instance of its own.
 */
export const atOnce = 25;

export type Tag = "scheduled" | "trickle" | "viral" | "founders";
export type Event =
  | { at: number; tag: "scheduled"; kind: "sweep" | "daily" }
  | { at: number; tag: "trickle" | "viral"; kind: "signup" | "confirm"; email: string }
  | { at: number; tag: "founders"; kind: "founders"; args: string[] };

/** The month's events in the order they happen; at one moment, scheduled runs first (midnight: the daily pass). */
export function schedule({ withTraffic, scale }: { withTraffic: boolean; scale: number }): Event[] {
  const events: Event[] = [];
  for (let d = 0; d < monthDays; d++) {
    events.push({ at: monthStart + d * day, tag: "scheduled", kind: "daily" });
    for (let at = 0; at < day; at += sweepEvery) {
      events.push({ at: monthStart + d * day + at, tag: "scheduled", kind: "sweep" });
    }
  }
  const signups = (tag: "trickle" | "viral", count: number, from: number, lasts: number, name: string) => {
    for (let i = 0; i < count; i++) {
      const at = from + Math.floor((i * lasts) / count);
      const email = `${name}${i}@example.com`;
      events.push({ at, tag, kind: "signup", email });
      if (confirms(i, email)) events.push({ at: at + confirmAfter(i), tag, kind: "confirm", email });
    }
  };
  if (withTraffic) {
    for (let d = 0; d < monthDays; d++) {
      const from = monthStart + d * day;
      signups(
        "trickle",
        Math.round(trickle.perDay * scale),
        from + trickle.from,
        trickle.to - trickle.from,
        `trickle${d}-`,
      );
    }
    signups(
      "viral",
      Math.round(viral.signups * scale),
      monthStart + viral.day * day + viral.from,
      viral.lasts,
      "viral",
    );
    const { letIn, announce, at } = foundersMail;
    const count = Math.round(letIn.count * scale);
    events.push({
      at: monthStart + letIn.day * day + at,
      tag: "founders",
      kind: "founders",
      args: foundersCommands.letIn(count),
    });
    events.push({
      at: monthStart + announce.day * day + at,
      tag: "founders",
      kind: "founders",
      args: foundersCommands.announce(),
    });
  }
  return events.sort((a, b) => a.at - b.at);
}
