// The daily pass at scale: removing the unconfirmed 30 days on, over a list of 100,000 (a mail outage's backlog is
// outage.ts's; the daily pass after a big day, daily.ts's).
import { type Deployment, progress } from "./deployment";

/** 31 days on, none of the `unconfirmed` signups confirmed: the daily pass at midnight UTC removes them. */
export async function retention(bench: Deployment, unconfirmed: number) {
  const { advanceTo, store, measured, daily, sweep } = bench;
  progress("31 days on: the daily pass's retention");
  const day = 86_400_000;
  await advanceTo(Math.ceil((Date.now() + 31 * day) / day) * day);
  const listedBefore = (await store.all()).length;
  const passes: { ops: number; ms: number }[] = [];
  for (let pass = 0; pass < 5; pass++) {
    const { ops, ms } = await measured(() => daily());
    passes.push({ ops, ms: Math.round(ms) });
    if ((await store.all()).length <= listedBefore - unconfirmed) break;
    await advanceTo(Math.ceil(Date.now() / day) * day);
  }
  const idleSweep = await measured(() => sweep());
  await advanceTo(Math.ceil(Date.now() / day) * day);
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
