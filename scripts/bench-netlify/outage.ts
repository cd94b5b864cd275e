// A mail outage on the viral day, at Netlify's speed: 10,000 signups from noon to 18:00 UTC while the mail provider
// refuses every recipient for now, the sweep every five minutes all along; from 18:00 the provider is back, at 0.5 s a
// message (1 in 50 at 3 s). How long until every confirmation owed is mailed, was any sweep killed at its 30 s, and
// was anyone mailed twice? (Each signup's own first attempt fails, and is owed to the sweeps.)
import { progress, startDeployment } from "./deployment";
import { atOnce } from "./month-run";

const minute = 60_000;
const hour = 60 * minute;
/** The viral day: Monday 1 March 2027, 10,000 signups from noon to 18:00 UTC, the mail down all that time. */
const day = { start: Date.UTC(2027, 2, 1), signups: 10_000, from: 12 * hour, to: 18 * hour };
/** How long the sweeps go on after the outage before the bench gives up: a day. */
const giveUpAfter = 24 * hour;

/** When each of the day's signups signs up, in order. */
const signupTimes = (count: number) =>
  Array.from({ length: count }, (_, i) => day.start + day.from + Math.floor((i * (day.to - day.from)) / count));

export async function outage({ scale = 1 } = {}) {
  const bench = await startDeployment({ start: day.start + day.from });
  const { advanceTo, smtp, invoke, signup, post, nextIp } = bench;
  const signups = Math.round(day.signups * scale);
  const back = day.start + day.to;
  bench.mail.downUntil = back;
  const times = signupTimes(signups);
  const email = (i: number) => `outage${i}@example.com`;
  let sweeps = 0;
  let killed = 0;
  const sweep = async () => {
    sweeps++;
    if ((await bench.sweep()) === "killed") killed++;
  };
  // Noon to 18:00: the signups, a group of `atOnce` at its first one's time, and the sweep every five minutes.
  const acknowledged: string[] = [];
  let nextSweep = day.start + day.from;
  for (let i = 0; i < signups; i += atOnce) {
    while (nextSweep <= times[i]!) {
      await advanceTo(nextSweep);
      await sweep();
      nextSweep += 5 * minute;
    }
    if (i % (atOnce * 40) === 0) progress(`the outage: signup ${i} of ${signups}`);
    await advanceTo(times[i]!);
    const group = Array.from({ length: Math.min(atOnce, signups - i) }, (_, j) => email(i + j));
    const replies = await Promise.all(group.map((address) => invoke(signup, post(address), nextIp())));
    replies.forEach((reply, j) => reply !== "killed" && reply.status === 200 && acknowledged.push(group[j]!));
  }
  for (; nextSweep < back; nextSweep += 5 * minute) {
    await advanceTo(nextSweep);
    await sweep();
  }
  const mailed = () => {
    const count = new Map<string, { times: number; last: number }>();
    for (const delivery of smtp.deliveries) {
      for (const to of delivery.envelope.to) {
        const seen = count.get(to);
        count.set(to, { times: (seen?.times ?? 0) + 1, last: Math.max(seen?.last ?? 0, delivery.at) });
      }
    }
    return count;
  };
  const owed = acknowledged.filter((address) => !mailed().has(address)).length;
  // 18:00 on: the provider is back; the sweep every five minutes until nothing is owed, or a day has passed.
  progress(`the outage is over: ${owed} owed`);
  for (let at = back; at < back + giveUpAfter; at += 5 * minute) {
    const sent = mailed();
    if (acknowledged.every((address) => sent.has(address))) break;
    if ((at - back) % hour === 0)
      progress(`the outage: ${acknowledged.length - sent.size} still owed at 18:00 + ${(at - back) / hour} h`);
    await advanceTo(at);
    await sweep();
  }
  const sent = mailed();
  const cleared = acknowledged.every((address) => sent.has(address));
  const lastMail = Math.max(back, ...acknowledged.map((address) => sent.get(address)?.last ?? 0));
  const result = {
    signups,
    acknowledged: acknowledged.length,
    owed,
    stillOwed: acknowledged.filter((address) => !sent.has(address)).length,
    /** From 18:00 to the last owed confirmation mailed; null when some were still owed a day later. */
    clearedMinutes: cleared ? Math.round((lastMail - back) / minute) : null,
    sweeps,
    killed,
    mailedTwice: acknowledged.filter((address) => (sent.get(address)?.times ?? 0) > 1).length,
  };
  await bench.stop();
  return result;
}

export type Outage = Awaited<ReturnType<typeof outage>>;
