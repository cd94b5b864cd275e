import { site } from "../config/site";
import type { LaunchToolWave } from "../waitlist/waves";

/*
 * The Privacy Policy's promise that the launch mail tool keeps a wave for that wave's e-mail only, deleted there
 * within site.waitlist.launchToolRetentionDays of it. Nothing here can delete it there, nor know when the founders
 * did: the commands that hand the tool a wave (let-in --launch-tool, export --launch) say when, and stats
 * (waitlist/reports/stats.ts) names each wave past it.
 */

const { launchToolRetentionDays: days } = site.waitlist;
const dayMs = 86_400_000;

/** What to do with `waves` ("wave 3", "each wave") at `tool` once its e-mail has gone. */
export const deleteFromTool = (waves: string, tool: string) =>
  `Delete ${waves} from ${tool} within ${days} days of its e-mail, as the Privacy Policy promises: once its bounces and unsubscribes are home (remove-unsubscribed) and those who left since are off it (leavers).`;

/** The day from which stats names a wave let in for the tool at `at`. */
export const remindedFrom = (at: Date) => new Date(at.getTime() + days * dayMs).toISOString().slice(0, 10);

/** A line for each wave given to `tool` longer ago than it may keep one (waves.ts, launchToolWavesDue). */
export const overdueAtTool = (due: readonly LaunchToolWave[], tool: string) =>
  due.map(
    ({ wave, letInAt, daysAgo }) =>
      `Wave ${wave} went to ${tool} on ${letInAt.slice(0, 10)}, ${daysAgo} days ago: delete it there now if you have not.`,
  );
