// The scheduled functions' work at scale: the daily pass removing the unconfirmed 30 days on, and the sweep every
// five minutes clearing a backlog of owed mail within its 30 s a run.
import { performance } from "node:perf_hooks";
import { type Deployment, progress } from "./deployment";

const backlogSize = 5_000;
const backlogMailMs = 100;

/** 31 days on, none of the `unconfirmed` signups confirmed: the daily pass at midnight UTC removes them. */
export async function retention(bench: Deployment, unconfirmed: number) {
  const { clock, store, measured, daily, sweep } = bench;
  progress("31 days on: the daily pass's retention");
  const day = 86_400_000;
  clock.setSystemTime(Math.ceil((Date.now() + 31 * day) / day) * day);
  const listedBefore = (await store.all()).length;
  const passes: { ops: number; ms: number }[] = [];
  for (let pass = 0; pass < 5; pass++) {
    const { ops, ms } = await measured(() => daily());
    passes.push({ ops, ms: Math.round(ms) });
    if ((await store.all()).length <= listedBefore - unconfirmed) break;
    clock.setSystemTime(Math.ceil(Date.now() / day) * day);
  }
  const idleSweep = await measured(() => sweep());
  clock.setSystemTime(Math.ceil(Date.now() / day) * day);
  const idleDaily = await measured(() => daily());
  return {
    unconfirmed,
    listed: listedBefore,
    removed: listedBefore - (await store.all()).length,
    passes,
    idleSweep: { ops: idleSweep.ops, ms: Math.round(idleSweep.ms) },
    idleDaily: { ops: idleDaily.ops, ms: Math.round(idleDaily.ms) },
  };
}

/**
 * A backlog: 5,000 confirmations owed after a mail outage (5,000 signed up while the mail server refused every
 * recipient for now, each first attempt failing and due again later, as the functions note it on either store),
 * then a mail server taking 100 ms a message, the sweep every five minutes, each run stopped at 30 s.
 */
export async function backlog(bench: Deployment) {
  const { clock, store, smtp, sweep, invoke, signup, post, nextIp } = bench;
  progress(`a backlog of ${backlogSize} owed`);
  bench.mail.downUntil = Number.POSITIVE_INFINITY;
  for (let i = 0; i < backlogSize; i += 25) {
    await Promise.all(Array.from({ length: 25 }, (_, j) => invoke(signup, post(`owed${i + j}@example.com`), nextIp())));
  }
  bench.mail.downUntil = 0;
  // The mail server is back.
  const backlogStart = Date.now();
  bench.mail.ms = backlogMailMs;
  const owedBacklog = async () =>
    (await store.pendingConfirmations()).filter((one) => one.email.startsWith("owed")).length;
  let backlogSweeps = 0;
  const sentPerSweep: number[] = [];
  let backlogKilled = 0;
  let clearedAt = backlogStart;
  while ((await owedBacklog()) > 0 && backlogSweeps < 60) {
    clock.setSystemTime(backlogStart + backlogSweeps * 300_000);
    const began = performance.now();
    const before = smtp.deliveries.length;
    if ((await sweep()) === "killed") backlogKilled++;
    sentPerSweep.push(smtp.deliveries.length - before);
    backlogSweeps++;
    clearedAt = backlogStart + (backlogSweeps - 1) * 300_000 + (performance.now() - began);
  }
  bench.mail.ms = 0;
  const backlogMailed = new Set(
    smtp.deliveries.flatMap((delivery) => delivery.envelope.to.filter((to) => to.startsWith("owed"))),
  ).size;
  const stillOwed = await owedBacklog();
  return {
    owed: backlogSize,
    mailMs: backlogMailMs,
    mailed: backlogMailed,
    stillOwed,
    /** When the last owed one went, from the first sweep; null when some are still owed. */
    clearedSeconds: stillOwed === 0 ? Math.round((clearedAt - backlogStart) / 1000) : null,
    sweeps: backlogSweeps,
    sentPerSweep,
    killed: backlogKilled,
  };
}
