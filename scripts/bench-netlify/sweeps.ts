// The scheduled sweep's two jobs at scale: removing the unconfirmed 30 days on, and clearing a backlog of owed mail
// within its 30 s a run.
import { performance } from "node:perf_hooks";
import { type Deployment, progress } from "./deployment";

const backlogSize = 5_000;
const backlogMailMs = 100;

/** 31 days on, none of the `unconfirmed` signups confirmed: the sweeps every five minutes remove them. */
export async function retention(bench: Deployment, unconfirmed: number) {
  const { clock, store, measured, sweep } = bench;
  progress("31 days on: the retention");
  clock.setSystemTime(Date.now() + 31 * 86_400_000);
  const listedBefore = (await store.all()).length;
  const sweeps: { ops: number; ms: number }[] = [];
  for (let pass = 0; pass < 20; pass++) {
    const { ops, ms } = await measured(() => sweep());
    sweeps.push({ ops, ms: Math.round(ms) });
    clock.setSystemTime(Date.now() + 300_000);
    if ((await store.all()).length === listedBefore - unconfirmed) break;
  }
  const idle = await measured(() => sweep());
  return {
    unconfirmed,
    listed: listedBefore,
    removed: listedBefore - (await store.all()).length,
    sweeps,
    idleSweep: { ops: idle.ops, ms: Math.round(idle.ms) },
  };
}

/**
 * A backlog: 5,000 confirmations owed (a mail outage, an import asked to confirm), a mail server taking 100 ms a
 * message, the sweep every five minutes, each run stopped at 30 s.
 */
export async function backlog(bench: Deployment) {
  const { clock, store, smtp, sweep } = bench;
  progress(`a backlog of ${backlogSize} owed`);
  const backlogStart = Date.now();
  await Promise.all(
    Array.from({ length: 10 }, async (_, lane) => {
      for (let i = lane; i < backlogSize; i += 10) {
        const email = `owed${i}@example.com`;
        await store.add({ email, emailKey: email, source: "netlify", at: new Date(backlogStart - 3_600_000) });
      }
    }),
  );
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
  return {
    owed: backlogSize,
    mailMs: backlogMailMs,
    mailed: backlogMailed,
    stillOwed: await owedBacklog(),
    clearedSeconds: Math.round((clearedAt - backlogStart) / 1000),
    sweeps: backlogSweeps,
    sentPerSweep,
    killed: backlogKilled,
  };
}
