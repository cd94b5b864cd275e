import { isLocalHost, mailConfig, serverConfig, type Env } from "../config/env";
import { waveOrders, type WaveOrder } from "../waitlist/waves";
import type { Options } from "./command";
import { UsageError } from "./errors";
import { privateFileTarget } from "./out-file";
import { requirePostalAddress } from "./sender";

/* let-in's options, checked before anything is read: what a wave is asked for, and what its e-mail needs. */

export interface LetInInput {
  count: number;
  order: WaveOrder;
  /** Slower still than the provider's pace, when the founder asks (--per-second). */
  perSecond?: number;
  launch?: { format: "csv" | "json"; target: string };
}

const wholeNumber = (value: string | undefined, option: string, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > max) {
    throw new UsageError(`${option} must be a whole number from 1 to ${max.toLocaleString("en-US")} (got "${value}").`);
  }
  return number;
};

export function checkLetIn(options: Options, env: () => Env): LetInInput {
  const count = wholeNumber(options.count, "--count", 10_000_000);
  if (count === undefined) {
    throw new UsageError("Say how many to let in: --count N (the next N confirmed signups in no wave yet).");
  }
  const order = waveOrders.find((one) => one === (options.order ?? "signup"));
  if (!order) throw new UsageError(`Unknown order "${options.order}": use --order invites or --order signup.`);
  const perSecond = wholeNumber(options["per-second"], "--per-second", 1000);
  if (options["launch-tool"]) {
    const format = options.format;
    if (format !== "csv" && format !== "json") {
      throw new UsageError("Say the launch tool's file: --launch-tool --format csv|json --out FILE.");
    }
    if (options.out === undefined) {
      throw new UsageError(
        "Say where the wave's file goes: --out FILE. It holds a working leave link for each person: import it into the launch mail tool, then delete it.",
      );
    }
    // A dry run names no tool yet: it writes nothing.
    if (options["dry-run"]) return { count, order, perSecond };
    return {
      count,
      order,
      perSecond,
      launch: { format, target: privateFileTarget(options.out) },
    };
  }
  if (options.format !== undefined || options.out !== undefined) {
    throw new UsageError("--format and --out go with --launch-tool: a wave e-mailed by this command writes no file.");
  }
  if (!options["dry-run"]) {
    if (env().LAUNCH_URL === undefined) {
      throw new UsageError(
        "Nobody let in: set LAUNCH_URL to the address where those let in start (the launched product's sign-up page). The e-mail's button leads there.",
      );
    }
    // A list of real people (a Netlify site's, or a Postgres database's): a file in this machine's outbox reaches none
    // of them, yet would be recorded as sent. The outbox is for a local SQLite file, to see what a person receives.
    const shared = options.netlify
      ? { site: "the Netlify site", list: "its store" }
      : serverConfig(env()).databaseUrl
        ? { site: "the site", list: "the Postgres database of DATABASE_URL" }
        : undefined;
    if (shared && !mailConfig(env()).smtpUrl) {
      throw new UsageError(
        `Nobody let in: set SMTP_URL to the mail server ${shared.site} sends through. Without it the e-mails would only be written to the outbox on this machine, where they reach nobody, and be recorded as sent in ${shared.list}; only a local SQLite file (WAITLIST_DB) lets in to the outbox. --dry-run shows the wave.`,
      );
    }
    // Real people's mail carries who sends it, and a way in they can reach; a file in the outbox on this machine may
    // show the placeholders and a local address.
    if (mailConfig(env()).smtpUrl) {
      requirePostalAddress(env());
      const { hostname } = new URL(env().LAUNCH_URL!);
      if (isLocalHost(hostname)) {
        throw new UsageError(
          `Nobody let in: LAUNCH_URL is ${env().LAUNCH_URL}, an address on this machine that nobody you mail can open. Set it to where those let in start, such as https://app.jointandem.app/start.`,
        );
      }
    }
  }
  return { count, order, perSecond };
}
