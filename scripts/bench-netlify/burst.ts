// A viral minute: a thousand signups spread over one minute, then again with the mail server down for the first five
// minutes; is every acknowledged address stored once and mailed once, and when did the last confirmation go out? The
// signups run on as many instances of the function as are busy at once, each started cold (deployment.ts).
import { type Deployment, progress } from "./deployment";

export const burstSize = 1_000;

/** A thousand signups spread over one minute, then a sweep every five minutes until nothing is owed. */
export async function burst(bench: Deployment, label: string, mailDownMinutes: number, size: number) {
  const { advanceTo, store, smtp, call, signup, post, nextIp, sweep } = bench;
  const began = Date.now();
  const instances = bench.instancesOf(signup);
  const mark = instances.mark();
  const made = instances.made();
  bench.mail.downUntil = began + mailDownMinutes * 60_000;
  const emails = Array.from({ length: size }, (_, i) => `${label}${i}@example.com`);
  const acknowledged: string[] = [];
  let killed = 0;
  const ended: Promise<void>[] = [];
  for (let i = 0; i < emails.length; i += 25) {
    await advanceTo(began + (i * 60_000) / size);
    const calls = emails.slice(i, i + 25).map((email) => call(signup, post(email), nextIp()));
    // Each visitor waits for the reply, not for the function's work after it (its e-mail): the next 25 come at their
    // time. Waiting for each 25's e-mails before the next spread the minute's signups over more than three minutes.
    const replies = await Promise.all(calls.map((one) => one.reply));
    replies.forEach((reply, j) => {
      if (reply !== "killed" && reply.status === 200) acknowledged.push(emails[i + j]!);
    });
    ended.push(...calls.map((one) => one.done.then((outcome) => void (outcome === "killed" && killed++))));
  }
  await Promise.all(ended);
  let sweeps = 0;
  const owed = async () => (await store.pendingConfirmations()).filter((one) => one.email.startsWith(label)).length;
  while ((await owed()) > 0 && sweeps < 100) {
    await advanceTo(began + 60_000 + sweeps * 300_000 + 300_000 - 60_000);
    await sweep();
    sweeps++;
  }
  // A signup whose own complaint the site took was removed, as by a leave: stored, not lost (as months.ts counts).
  // Read after the rows: a complaint taken meanwhile is in one or the other.
  const rows = new Set((await store.all()).map((row) => row.email));
  for (const email of bench.complainedOf()) rows.add(email);
  const deliveries = new Map<string, number>();
  let last = began;
  for (const delivery of smtp.deliveries) {
    for (const to of delivery.envelope.to) {
      if (!to.startsWith(label)) continue;
      deliveries.set(to, (deliveries.get(to) ?? 0) + 1);
      last = Math.max(last, delivery.at);
    }
  }
  return {
    signups: size,
    acknowledged: acknowledged.length,
    killed,
    storedOnce: acknowledged.filter((email) => rows.has(email)).length,
    confirmedOnce: acknowledged.filter((email) => deliveries.get(email) === 1).length,
    lost: acknowledged.filter((email) => !rows.has(email) || deliveries.get(email) !== 1).length,
    sweeps,
    lastConfirmationSeconds: Math.round((last - began) / 1000),
    /** The signup function's instances its signups ran on, and how many of them were started for it (cold). */
    instances: instances.usedSince(mark),
    coldStarts: instances.made() - made,
  };
}

/** The burst (`burstSize` times `scale`), then an hour later the same burst with the mail down for its first five minutes. */
export async function viralMinute(bench: Deployment, { scale = 1 } = {}) {
  const size = Math.round(burstSize * scale);
  progress(`a burst of ${size} signups in a minute`);
  const burstResult = await burst(bench, "burst", 0, size);
  await bench.advanceTo(Date.now() + 3_600_000);
  progress("the same burst with the mail server down for 5 minutes");
  const mailDownResult = await burst(bench, "down", 5, size);
  return { burst: burstResult, mailDown: mailDownResult };
}
