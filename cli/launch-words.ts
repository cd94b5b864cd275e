import type { Env } from "../config/env";
import { site } from "../config/site";
import type { RunOutcome } from "../waitlist/launch/mail-run";
import type { Signup } from "../waitlist/signup-life/types";
import type { NotMailed } from "../waitlist/signup-life/rules";
import { PendingError } from "./errors";
import { plural, postalAddressShown } from "./sender";

/* What the launch commands (let-in, announce-policy-change) say of a run: the founders' words, nothing decided here. */

/** Those the rule left out of a wave's choice or an announcement's audience, one line each. */
export function leftOutWords(
  counts: Partial<Record<NotMailed, number>>,
  kind: "wave" | "announcement",
  suppressed = 0,
): string[] {
  const { restricted = 0, undeliverable = 0 } = counts;
  if (kind === "wave") {
    const lines =
      restricted > 0
        ? [`Skipped ${plural(restricted, "confirmed person", "confirmed people")} whose entry is restricted.`]
        : [];
    if (undeliverable + suppressed === 0) return lines;
    const people = plural(undeliverable + suppressed, "confirmed person", "confirmed people");
    return [
      ...lines,
      `Skipped ${people} the mail cannot reach: ${undeliverable} whose mail bounced for good, ${suppressed} whose mailbox is held after a bounce or a spam complaint.`,
    ];
  }
  const letIn = counts["let-in"] ?? 0;
  return [
    ...(undeliverable > 0
      ? [`Skipped ${plural(undeliverable, "member")} whose mail bounced for good: never mailed again.`]
      : []),
    ...(letIn > 0
      ? [
          `Skipped ${plural(letIn, "member")} let in already: their consent was to hear from us until early access opened for them.`,
        ]
      : []),
    ...(restricted > 0 ? [`Skipped ${plural(restricted, "member")} whose entry is restricted.`] : []),
  ];
}

/**
 * What an announcement's run says after its count: those sent it before, those gone, those the rule left out
 * (`skipped`), those held, unsure and refused for good; one line each.
 */
export function announcedWords(outcome: RunOutcome, before: number, skipped: readonly string[]): string[] {
  const lines: string[] = [];
  if (before > 0) {
    const was = before === 1 ? "was" : "were";
    lines.push(
      `${before} ${was} sent it by an earlier run (or ${was} being sent it when a run stopped): not sent again; --again sends it to them again.`,
    );
  }
  const gone = outcome.gone - before;
  if (gone > 0)
    lines.push(`${plural(gone, "person", "people")} left or signed up anew since the list was read: not sent.`);
  lines.push(...skipped);
  const held = outcome.notMailed.suppressed ?? 0;
  if (held > 0) {
    lines.push(`Skipped ${plural(held, "member")} whose mailbox is held after a bounce or a spam complaint: not sent.`);
  }
  if (outcome.refused.length > 0) {
    lines.push(
      `Refused for good by the mail server (not tried again; the address is held as after a bounce):\n${outcome.refused.map((line) => `  ${line}`).join("\n")}`,
    );
  }
  return [...lines, ...unsureWords(outcome.unknown)];
}

/** Those whose message may have gone: never sent again, and the founders told how many. */
export const unsureWords = (unknown: number) =>
  unknown > 0
    ? [
        `${plural(unknown, "person's e-mail", "people's e-mails")} may have gone: the connection dropped as ${unknown === 1 ? "it was" : "they were"} sent, so ${unknown === 1 ? "it is" : "they are"} not sent again rather than maybe twice.`,
      ]
    : [];

/** What a wave's mailing run says: sent, gone, refused; thrown as pending while any is still owed (exit code 1). */
export function waveReport(lines: string[], outcome: RunOutcome, owed: number): string {
  const said = [...lines];
  if (outcome.gone > 0) {
    said.push(`${plural(outcome.gone, "person", "people")} left since (or another run took them): not sent.`);
  }
  if (outcome.refused.length > 0) {
    said.push(
      `Refused for good by the mail server (not tried again):\n${outcome.refused.map((line) => `  ${line}`).join("\n")}`,
    );
  }
  const unreachable = Object.values(outcome.notMailed).reduce((sum, n) => sum + n, 0);
  if (unreachable > 0) {
    said.push(
      `${plural(unreachable, "person", "people")} the mail can no longer reach (bounced for good, or held after a bounce or a spam complaint): not sent.`,
    );
  }
  said.push(...unsureWords(outcome.unknown));
  const left = owed - outcome.sent - outcome.gone - unreachable - outcome.unknown - outcome.refused.length;
  if (outcome.failed.length > 0 || left > 0) {
    const owedLine = `${plural(left, "e-mail")} of the wave still owed`;
    const again = "run let-in again to send them (nobody is mailed twice)";
    const stopped = outcome.halted
      ? `Stopped, as ${outcome.halted}: ${owedLine}; put it right, then ${again}.`
      : `${outcome.stopped ? "Stopped" : "Not sent, the mail server said"}: ${owedLine}; ${again}.`;
    const detail = outcome.failed.map((line) => `\n  ${line}`).join("");
    throw new PendingError(`${said.join("\n")}\n${stopped}${detail}`);
  }
  return said.join("\n");
}

/** The signals that stop a run: Ctrl-C, a kill, the terminal gone (an SSH session dropped). */
const stopSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Runs `work` with the first stop signal asking it to stop (those under way finish, the rest stay owed); a second one
 * ends the process at once.
 */
export async function stopSignalsWhile<T>(work: (stopped: () => boolean) => Promise<T>): Promise<T> {
  let asked = false;
  const stop = (signal: NodeJS.Signals) => {
    if (!asked) {
      asked = true;
      return;
    }
    for (const one of stopSignals) process.off(one, stop);
    process.kill(process.pid, signal);
  };
  for (const signal of stopSignals) process.on(signal, stop);
  try {
    return await work(() => asked);
  } finally {
    for (const signal of stopSignals) process.off(signal, stop);
  }
}

/**
 * What a dry run of let-in shows of the wave it would let in: the first 50 chosen, and what each would get, without
 * making a link (a dry run writes nothing, not even the store's secret).
 */
export function dryRunWave(
  chosen: readonly { signup: Signup; confirmedInvites: number }[],
  { order, launchTool, env }: { order: string; launchTool: boolean; env: Env },
) {
  const shown = chosen.slice(0, 50).map(({ signup, confirmedInvites }, n) => {
    const brought = order === "invites" ? `, ${plural(confirmedInvites, "confirmed invite")}` : "";
    return `  ${n + 1}. ${signup.email} (signed up ${signup.createdAt.slice(0, 10)}${brought})`;
  });
  const more = chosen.length > shown.length ? [`  … and ${chosen.length - shown.length} more`] : [];
  const what = launchTool
    ? []
    : [
        `Each gets "You're in: early access to ${site.name} is open for you", its button to ${env.LAUNCH_URL ?? "LAUNCH_URL (not set yet)"}, their own leave link and ${postalAddressShown(env)}.`,
      ];
  return {
    how: launchTool ? "for the launch tool" : 'each e-mailed "You\'re in"',
    lines: [...shown, ...more, ...what],
  };
}
