// Runs a month's events (month-traffic.ts) on a deployment of the bundled functions, each at its time on the
// simulated clock: what each invocation took and answered, what the store was asked, and the signups lost on the way.
import { confirmLinks } from "../../test/support/smtp";
import { type Deployment, progress, replyBytes } from "./deployment";
import { runFounders, type FoundersRun } from "./founders";
import { day, monthDays, monthStart, type Event, type Tag } from "./month-traffic";

/**
 * Invocations of the viral day that run at once, as Netlify runs them on instances of their own, each group at its
 * first one's time: the day's 10,000 signups and 6,000 confirmations would take an hour one at a time. On the
 * simulated clock each still takes its own time, as on an instance of its own.
 */
export const atOnce = 25;

export type Kind = "sweep" | "daily" | "signup" | "confirm page" | "confirm button" | "drain" | "mail event";

export interface Invocation {
  kind: Kind;
  ms: number;
  /** The reply's bytes: its body and headers, as the function wrote them. */
  bytes: number;
  killed: boolean;
}

/** What ran at one moment of the month, and what it cost the store. */
export interface Step {
  at: number;
  end: number;
  tag: Tag;
  invocations: Invocation[];
  blobsOps: number;
}

/** Runs the month's events on `bench`, in order, each at its time on the simulated clock. */
export async function run(bench: Deployment, events: readonly Event[], label: string) {
  const { advanceTo, smtp, invoke, post, opened, pressed, nextIp } = bench;
  const delivered = new Map<string, string>();
  let indexed = 0;
  /** The confirm link of the mail to `email`. */
  const linkTo = (email: string) => {
    for (; indexed < smtp.deliveries.length; indexed++) {
      const delivery = smtp.deliveries[indexed]!;
      const link = confirmLinks(delivery.mail).text;
      if (link) for (const to of delivery.envelope.to) delivered.set(to, link);
    }
    return delivered.get(email);
  };
  // The simulated clock's time: Netlify's speed (latency.ts). A killed invocation is billed its limit.
  const timed = async (kind: Kind, call: () => Promise<Response | "killed">) => {
    const began = Date.now();
    const reply = await call();
    const ms = Date.now() - began;
    if (reply === "killed") return { kind, ms, bytes: 0, killed: true };
    return { kind, ms, bytes: await replyBytes(reply), killed: false };
  };
  /** The founders' commands, under way beside the month's events. */
  const founders: Promise<FoundersRun>[] = [];
  const perform = async (event: Event): Promise<Invocation[]> => {
    if (event.tag === "scheduled") return [await timed(event.kind, bench[event.kind])];
    if (event.kind === "founders") {
      progress(`${label}: npm run waitlist -- ${event.args.join(" ")} --netlify`);
      founders.push(runFounders(bench, event.args));
      return [];
    }
    if (event.kind === "signup") {
      return [await timed("signup", () => invoke(bench.signup, post(event.email), nextIp()))];
    }
    const link = linkTo(event.email);
    // No mail, no link to follow: counted as lost.
    if (!link) return [];
    return [
      await timed("confirm page", () => invoke(bench.confirm, opened(link), nextIp())),
      await timed("confirm button", () => invoke(bench.confirm, pressed(link, "/waitlist/confirm"), nextIp())),
    ];
  };

  const blobsOps = async () => {
    await bench.blobs.settled();
    return bench.blobs.operations.length;
  };
  let lastOps = await blobsOps();
  const steps: Step[] = [];
  let shownDay = -1;
  for (let i = 0; i < events.length;) {
    const first = events[i]!;
    const group = [first];
    while (first.tag === "viral" && group.length < atOnce && events[i + group.length]?.tag === "viral") {
      group.push(events[i + group.length]!);
    }
    i += group.length;
    const dayOf = Math.floor((first.at - monthStart) / day);
    if (dayOf !== shownDay && dayOf < monthDays) progress(`${label}: day ${(shownDay = dayOf) + 1} of ${monthDays}`);
    // Never back in time: the viral day's groups may run behind its schedule.
    await advanceTo(first.at);
    const at = Date.now();
    const invocations = (await Promise.all(group.map((event) => perform(event)))).flat();
    const end = Date.now();
    const nowOps = await blobsOps();
    steps.push({ at, end, tag: first.tag, invocations, blobsOps: nowOps - lastOps });
    lastOps = nowOps;
  }
  const foundersRuns = await Promise.all(founders);
  await bench.settled();
  steps.push(...siteCallSteps(bench, events));
  const nowOps = await blobsOps();
  if (steps.length > 0) steps.at(-1)!.blobsOps += nowOps - lastOps;
  return { steps, founders: foundersRuns };
}

/**
 * The calls of the site's functions the functions and the provider made (drains, bounces and complaints), as steps of
 * their own: a mail event is of the signup it names (trickle or viral; the founders' when they name neither), a drain
 * of the viral day in its hours and of the trickle otherwise. Their Blobs operations are counted in the steps they
 * ran beside.
 */
function siteCallSteps(bench: Deployment, events: readonly Event[]): Step[] {
  const viralTimes = events.filter((event) => event.tag === "viral").map((event) => event.at);
  const inViralHours = (at: number) =>
    viralTimes.length > 0 && at >= Math.min(...viralTimes) && at <= Math.max(...viralTimes);
  const tagOf = (call: Deployment["siteCalls"][number]): Tag => {
    if (call.kind === "drain") return inViralHours(call.at) ? "viral" : "trickle";
    const address = call.addresses[0] ?? "";
    return address.startsWith("viral") ? "viral" : address.startsWith("trickle") ? "trickle" : "founders";
  };
  return bench.siteCalls.map((call) => ({
    at: call.at,
    end: call.at + call.ms,
    tag: tagOf(call),
    invocations: [{ kind: call.kind, ms: call.ms, bytes: call.bytes, killed: call.killed }],
    blobsOps: 0,
  }));
}

/**
 * Signups lost: not stored, not sent their confirmation exactly once, or confirmed by their link and not kept as
 * confirmed; a signup the site removed on its own complaint (as a leave) is not lost. And the signups whose
 * confirmation the site refused for good for a throttle or a quota: none should be (a throttle or a quota holds the
 * mail, it refuses nobody).
 */
export async function lost(bench: Deployment, events: readonly Event[]) {
  // The ledger the founders read (on Blobs) is brought up to date by a sweep: one after the month, not counted.
  await bench.sweep();
  const all = await bench.store.all();
  const rows = new Map(all.map((row) => [row.email, row]));
  const confirmations = new Map<string, number>();
  for (const delivery of bench.smtp.deliveries) {
    if (!confirmLinks(delivery.mail).text) continue;
    for (const to of delivery.envelope.to) confirmations.set(to, (confirmations.get(to) ?? 0) + 1);
  }
  const complained = new Set(bench.complainedOf());
  const lostSignups = events.filter(
    (event) =>
      event.kind !== "founders" &&
      event.tag !== "scheduled" &&
      !complained.has(event.email) &&
      ((event.kind === "signup" && (!rows.has(event.email) || confirmations.get(event.email) !== 1)) ||
        (event.kind === "confirm" && !rows.get(event.email)?.confirmedAt)),
  ).length;
  const refusedForLimits = all.filter(
    (row) => row.state === "refused" && /throttl|quota|rate/i.test(row.confirmationError ?? ""),
  ).length;
  return { lost: lostSignups, refusedForLimits };
}
