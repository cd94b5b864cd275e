import pLimit from "p-limit";
import { RateLimiterMemory, RateLimiterQueue } from "rate-limiter-flexible";
import { isLocalHost, mailConfig, serverConfig, waitlistConfig, type Env } from "../../config/env";
import { site } from "../../config/site";
import { maskEmail } from "../../waitlist/email-address";
import { letInMessage } from "../../waitlist/mail/let-in-message";
import { createMailer } from "../../waitlist/mail/mailer";
import { heldWords, takeWaiting, type MailPace, type MailSent, type PaceOutcome } from "../../waitlist/mail/pace";
import { classifyMailFailure } from "../../waitlist/mail/replies";
import { mailErrorReason } from "../../waitlist/mail/redact";
import type { FullStore } from "../../waitlist/stores/store";
import { leaveUrl } from "../../waitlist/tokens";
import { isMailable, isMember, isRestricted, neverAsked } from "../../waitlist/signup-life/rules";
import { suppressedUntil } from "../../waitlist/suppressions";
import { chooseWave, nextWave, waveOrders, type WaveOrder } from "../../waitlist/waves";
import { command, type Options } from "../command";
import { PendingError, UsageError } from "../errors";
import { linkSecretOf, paceOf } from "../open-store";
import { privateFileTarget } from "../out-file";
import { plural, postalAddressShown, requirePostalAddress } from "../sender";
import { launchList, launchTool, writeLaunchFile } from "./launch-list";
import { deleteFromTool, remindedFrom } from "../tool-waves";
import type { Signup } from "../../waitlist/signup-life/types";

/*
 * npm run waitlist -- let-in: at launch, a wave at a time. The next N confirmed signups in no wave are chosen in the
 * order the Privacy Policy names (waitlist/waves.ts), each let in by its key (Waves.letIn: one atomic step, so two runs
 * never put one person in two waves), then either e-mailed "You're in" or handed to the launch tool in a file.
 *
 * Each e-mail is taken in the store before it is sent and marked sent after (signup-life's letInMailStep): a run
 * stopped half-way (Ctrl-C, a crash, the provider down) leaves the rest owed, and the next run sends them and starts
 * no new wave; nobody is mailed twice. Taking it is also the check that the person is still listed as let in: one who
 * left since is not mailed. A crash in the moment between taking and sending leaves that one "sending": reported, and
 * never sent again rather than maybe twice.
 */

/** Lets in at once: each a read and a compare-and-swap (a few Netlify API calls with --netlify). */
const lettingInAtOnce = 8;

interface LetInInput {
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

function checkLetIn(options: Options, env: () => Env): LetInInput {
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

/** Whoever is chosen and let in, with the e-mail's state kept as the store has it. */
type LetIn = Pick<Signup, "email" | "emailKey" | "createdAt" | "state"> & { wave: number };

/**
 * The next wave of those the mail may reach: chooseWave leaves out a member whose mail bounced for good (signup-life's
 * mayBeLetIn), and this one whose mailbox is held after a bounce or a spam complaint (suppressions.ts), looked up by
 * key as each is chosen, until the wave is full of the rest. A dry run reads no secret, and leaves the second out.
 */
async function chooseReachable(store: FullStore, everyone: Signup[], input: LetInInput, secret?: string) {
  const [held, clear] = [new Set<string>(), new Set<string>()];
  const limit = pLimit(lettingInAtOnce);
  for (;;) {
    const chosen = chooseWave(everyone, { ...input, skip: (one) => held.has(one.emailKey) });
    const unchecked = secret === undefined ? [] : chosen.filter(({ signup }) => !clear.has(signup.emailKey));
    if (unchecked.length === 0) return { chosen, held: held.size };
    const lookUp = async (key: string) =>
      ((await suppressedUntil(store, secret!, key, new Date())) ? held : clear).add(key);
    await Promise.all(unchecked.map(({ signup }) => limit(() => lookUp(signup.emailKey))));
  }
}

/** How many the mail cannot reach a wave left out: those undeliverable, and those `held` (chooseReachable). */
function skippedLine(everyone: readonly Signup[], held: number): string[] {
  const waiting = everyone.filter((one) => isMember(one) && one.wave === null);
  const restricted = waiting.filter(isRestricted).length;
  const undeliverable = waiting.filter((one) => !isMailable(one) && !isRestricted(one)).length;
  const restrictedLine =
    restricted > 0
      ? [`Skipped ${plural(restricted, "confirmed person", "confirmed people")} whose entry is restricted.`]
      : [];
  if (undeliverable + held === 0) return restrictedLine;
  const people = plural(undeliverable + held, "confirmed person", "confirmed people");
  return [
    ...restrictedLine,
    `Skipped ${people} the mail cannot reach: ${undeliverable} whose mail bounced for good, ${held} whose mailbox is held after a bounce or a spam complaint.`,
  ];
}

/** The signals that stop a run: Ctrl-C, a kill, the terminal gone (an SSH session dropped). */
const stopSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Mails the wave's e-mail to each of `people`, within the provider's limits together with every other sender (the
 * shared pace: its rate, its connections, its daily limit), at `perSecond` at most if the founder says so. Each waits
 * for its turn in the pace first, then is taken in the store (so nobody sits taken while waiting), then sent. A
 * throttle waits its short hold and tries that person again. Stops taking more on the first stop signal (those under
 * way finish; a second one ends the process at once), on a failure of the sending itself (the sender refused, its
 * credentials, the server unreachable: no later message would fare better), on the provider's quota or the server
 * down (the pace's hold), and on a store that fails; the rest stay owed for the next run.
 */
async function mailWave(
  store: FullStore,
  people: readonly LetIn[],
  env: Env,
  linkSecret: string,
  { pace, perSecond }: { pace: MailPace; perSecond?: number },
) {
  const { siteUrl, contactEmail } = waitlistConfig(env);
  const config = mailConfig(env);
  const mailer = createMailer(config);
  // Slower still than the shared pace when the founder asks (--per-second); the outbox has none.
  const cap =
    config.smtpUrl && perSecond
      ? new RateLimiterQueue(new RateLimiterMemory({ points: perSecond, duration: 1 }))
      : undefined;
  const postalAddress = postalAddressShown(env);
  const outcome = {
    sent: 0,
    gone: 0,
    /** Taken, then refused: the mail can no longer reach them (a bounce for good or a complaint since). */
    unreachable: 0,
    refused: [] as string[],
    failed: [] as string[],
    stopped: false,
    /** Why the run stopped before its end, other than a signal: the sending's failure, the provider's, or the store's. */
    halted: undefined as string | undefined,
  };
  const stop = (signal: NodeJS.Signals) => {
    if (!outcome.stopped) {
      outcome.stopped = true;
      return;
    }
    for (const one of stopSignals) process.off(one, stop);
    process.kill(process.pid, signal);
  };
  for (const signal of stopSignals) process.on(signal, stop);
  const limit = pLimit(Math.min(pace.limits.connections, 32));
  const halt = (why: string) => {
    outcome.halted ??= why;
    outcome.stopped = true;
  };
  /**
   * A start from the shared pace, waited for through a throttle's short hold; none past a quota or the server down.
   * The run's first message is a probe: a founder runs it having put the server right, and sent, it ends the hold.
   */
  let probed = false;
  const start = async () => {
    const probe = !probed;
    probed = true;
    const ticket = await takeWaiting(pace, { stopped: () => outcome.stopped, probe });
    if (!ticket.go) halt(heldWords(ticket));
    return ticket;
  };
  /** One person's e-mail: sent, given back owed, or refused for good; "again" after a throttle's short hold. */
  const attemptOne = async (person: LetIn): Promise<"again" | "done"> => {
    await cap?.removeTokens(1);
    const ticket = await start();
    if (outcome.stopped || !ticket.go) {
      if (ticket.go) await ticket.done("unused");
      return "done";
    }
    let told = "unused" as PaceOutcome;
    let timing: MailSent | void = undefined;
    try {
      // Taken before it goes: still listed, still let in with this wave, and no other run's to send.
      if (!(await store.letInMail(person.emailKey, "take", person.wave))) {
        outcome.gone++;
        return "done";
      }
      // Not mailed once the mail cannot reach them (a wave stopped half-way may be finished days later): refused, so
      // that no later run owes it.
      if (!isMailable(person) || (await suppressedUntil(store, linkSecret, person.emailKey, new Date()))) {
        await store.letInMail(person.emailKey, "refuse", person.wave);
        outcome.unreachable++;
        return "done";
      }
      const message = letInMessage(person.email, {
        ...person,
        linkSecret,
        siteUrl,
        contactEmail,
        launchUrl: env.LAUNCH_URL!,
        postalAddress,
      });
      try {
        timing = await mailer.send(message);
      } catch (error) {
        const reason = `${maskEmail(person.email)}: ${mailErrorReason(error, person.email)}`;
        const kind = classifyMailFailure(error);
        // Unknown (the connection lost after the whole message): the provider may have sent it, and "You're in"
        // twice is worse than once unknown, so it counts as sent and is never sent again (replies.ts).
        const mark = kind === "recipient" ? "refuse" : kind === "unknown" ? "sent" : "back";
        await store.letInMail(person.emailKey, mark, person.wave);
        told = kind === "recipient" ? "refused" : kind === "sending" ? "down" : kind === "unknown" ? "transient" : kind;
        if (kind === "recipient") outcome.refused.push(reason);
        else if (kind === "transient") outcome.failed.push(reason);
        else if (kind === "unknown") outcome.failed.push(`${reason} (sent or not, unknown: counted as sent)`);
        else if (kind === "sending") halt(`the mail server refused the sending (${reason.replace(/^[^:]*: /, "")})`);
        // A throttle holds every sender a moment: this one is tried again once it ends.
        return kind === "throttle" ? "again" : "done";
      }
      told = "sent";
      await store.letInMail(person.emailKey, "sent", person.wave);
      outcome.sent++;
      return "done";
    } finally {
      await ticket.done(told, timing);
    }
  };
  const mailOne = async (person: LetIn) => {
    while ((await attemptOne(person)) === "again" && !outcome.stopped);
  };
  const mailCaught = (person: LetIn) =>
    mailOne(person).catch((error: unknown) => halt(`the store failed (${(error as Error).message})`));
  try {
    // The probe alone, then the rest over every connection together.
    if (people.length > 0) await mailCaught(people[0]!);
    await Promise.all(people.slice(1).map((person) => limit(() => mailCaught(person))));
  } finally {
    for (const signal of stopSignals) process.off(signal, stop);
    mailer.close();
  }
  return { ...outcome, destination: mailer.destination };
}

/** What a mailing run says: sent, gone, refused; thrown as pending while any is still owed (exit code 1). */
function mailReport(lines: string[], outcome: Awaited<ReturnType<typeof mailWave>>, owed: number): string {
  const said = [...lines];
  if (outcome.gone > 0) {
    said.push(`${plural(outcome.gone, "person", "people")} left since (or another run took them): not sent.`);
  }
  if (outcome.refused.length > 0) {
    said.push(
      `Refused for good by the mail server (not tried again):\n${outcome.refused.map((line) => `  ${line}`).join("\n")}`,
    );
  }
  if (outcome.unreachable > 0) {
    said.push(
      `${plural(outcome.unreachable, "person", "people")} the mail can no longer reach (bounced for good, or held after a bounce or a spam complaint): not sent.`,
    );
  }
  const left = owed - outcome.sent - outcome.gone - outcome.unreachable - outcome.refused.length;
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

export const letIn = command({
  name: "let-in",
  usage: [
    "let-in --count N [--order invites|signup] [--per-second N] [--dry-run]",
    "let the next N confirmed signups in no wave in, as one wave: in the",
    "order of signup, or by invites (those who brought the most confirmed",
    'creators first, then by signup); each e-mailed "You\'re in" with',
    "LAUNCH_URL and their own leave link, within the provider's limits",
    "with every other sender (MAIL_PROVIDER; --per-second N slower still).",
    "A run stopped half-way is finished by the next, which starts no new wave;",
    "nobody is mailed twice. With --launch-tool --format csv|json --out",
    "FILE: the wave goes in a file for the launch mail tool to mail",
    "instead, refused until the Privacy Policy at SITE_URL names the tool.",
    "No wave starts while a signup from before the confirm step was never",
    "asked (count names them): ask-to-confirm first.",
  ],
  check: checkLetIn,
  run: async ({ input, options, env, opened }) => {
    // Before anything is read or written: the wave goes to no tool the Privacy Policy the site serves does not name.
    const tool = input.launch ? await launchTool(waitlistConfig(env).siteUrl) : undefined;
    const { store } = opened;
    const everyone = await store.all();
    const unfinished = everyone.filter((one) => one.letInMail === "owed");
    const unsure = everyone.filter((one) => one.letInMail === "sending").length;
    const unsureLine =
      unsure > 0
        ? [
            `${plural(unsure, "person", "people")} of an earlier wave ${unsure === 1 ? "was" : "were"} being mailed when a run stopped: ${unsure === 1 ? "it" : "each"} may have gone, so it is not sent again (export --record --format json shows them, with let_in_mail "sending").`,
          ]
        : [];
    const wavesOf = (people: readonly { wave: number | null }[]) =>
      [...new Set(people.map((one) => one.wave))].sort((a, b) => a! - b!).join(", ");

    if (unfinished.length > 0) {
      // A wave stopped half-way is finished first, and no new wave starts in the same run.
      const intro = `Wave ${wavesOf(unfinished)} was stopped half-way: ${plural(unfinished.length, "e-mail")} still owed.`;
      // Those are owed the e-mail, which carries LAUNCH_URL and the postal address: --launch-tool checks neither.
      if (options["launch-tool"]) {
        throw new UsageError(
          `${intro} Run let-in --count ${input.count} without --launch-tool (and with LAUNCH_URL) to send them first; nobody is mailed twice. A new wave starts after.`,
        );
      }
      if (options["dry-run"]) return `${intro} Would send them first, and start no new wave in that run.`;
      const secret = await linkSecretOf(opened, env);
      const people = unfinished.map((one) => ({ ...one, wave: one.wave! }));
      const outcome = await mailWave(store, people, env, secret, { pace: paceOf(opened, env), ...input });
      return mailReport(
        [
          intro,
          `Sent ${outcome.sent} of them (via ${outcome.destination}). No new wave was started: run let-in again for the next.`,
          ...unsureLine,
        ],
        outcome,
        people.length,
      );
    }

    // The Privacy Policy promises those from before the confirm step one asking before the launch: no wave starts
    // while any was never asked (a wave stopped half-way, above, has started already, and is finished).
    const unasked = everyone.filter(neverAsked).length;
    const askFirst =
      unasked > 0
        ? `${plural(unasked, "signup")} from before the confirm step ${unasked === 1 ? "was" : "were"} never asked to confirm, and the Privacy Policy promises to ask each once before the launch. Ask them first: npm run waitlist -- ask-to-confirm${options.netlify ? " --netlify" : ""}, then run let-in again.`
        : undefined;
    if (askFirst && !options["dry-run"]) throw new UsageError(`Nobody let in: ${askFirst}`);
    const askFirstLine = askFirst ? [`Refused for now, as it stands: ${askFirst}`] : [];

    // The links' secret first (a dry run writes nothing, not even the store's secret): it finds the mailboxes held.
    const secret = options["dry-run"] ? undefined : await linkSecretOf(opened, env);
    const { chosen, held } = await chooseReachable(store, everyone, input, secret);
    const skipped = skippedLine(everyone, held);
    const by = input.order === "invites" ? "by invites" : "in the order of signup";
    if (chosen.length === 0) {
      return [
        "Nobody to let in: every confirmed signup is in a wave already (or none has confirmed).",
        ...skipped,
        ...askFirstLine,
      ].join("\n");
    }
    if (options["dry-run"]) {
      const shown = chosen.slice(0, 50).map(({ signup, confirmedInvites }, n) => {
        const brought = input.order === "invites" ? `, ${plural(confirmedInvites, "confirmed invite")}` : "";
        return `  ${n + 1}. ${signup.email} (signed up ${signup.createdAt.slice(0, 10)}${brought})`;
      });
      const more = chosen.length > shown.length ? [`  … and ${chosen.length - shown.length} more`] : [];
      const how = options["launch-tool"] ? "for the launch tool" : 'each e-mailed "You\'re in"';
      // What each would get, without making a link (a dry run writes nothing, not even the store's secret).
      const what = options["launch-tool"]
        ? []
        : [
            `Each gets "You're in: early access to ${site.name} is open for you", its button to ${env.LAUNCH_URL ?? "LAUNCH_URL (not set yet)"}, their own leave link and ${postalAddressShown(env)}.`,
          ];
      return [
        `Would let in ${plural(chosen.length, "person", "people")} as wave ${nextWave(everyone)}, ${by}, ${how}:`,
        ...shown,
        ...more,
        ...what,
        ...skipped,
        ...askFirstLine,
      ].join("\n");
    }

    // The wave's number: one no run has used (store.once), even when two run at once.
    let wave = nextWave(everyone);
    while (!(await store.once(`wave-${wave}`))) wave++;
    const at = new Date();
    const mail = input.launch === undefined;
    const limit = pLimit(lettingInAtOnce);
    const taken = (
      await Promise.all(
        chosen.map(({ signup }) =>
          limit(async () =>
            (await store.letIn(signup.emailKey, { wave, at, createdAt: signup.createdAt, mail })) ? signup : undefined,
          ),
        ),
      )
    ).filter((one) => one !== undefined);
    if (taken.length === 0) {
      return `Nobody let in: each of the ${plural(chosen.length, "person", "people")} chosen left, or another run let them in, meanwhile. Wave ${wave}'s number is spent; run let-in again.`;
    }
    const lettingIn = `Wave ${wave}: let in ${plural(taken.length, "person", "people")}, ${by}`;
    const missed = chosen.length - taken.length;
    const missedLine =
      missed > 0 ? [`${plural(missed, "person", "people")} left or joined another wave meanwhile.`] : [];

    if (input.launch) {
      const { siteUrl } = waitlistConfig(env);
      // In the order of signup, as export --launch --wave writes it again.
      const inWave = taken
        .map((signup) => ({ ...signup, wave, letInMail: "launch-tool" as const }))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const rows = launchList(inWave, (row) => leaveUrl(row.email, row.createdAt, secret!, siteUrl), { wave });
      let warnings: string[];
      try {
        warnings = writeLaunchFile(input.launch.target, rows, input.launch.format);
      } catch (error) {
        // They are let in, for the tool: the file can be written again, and the next let-in starts the next wave.
        throw new PendingError(
          `${lettingIn}, for ${tool} to mail, but its file could not be written (${(error as Error).message}). Write it with export --launch --wave ${wave} --format ${input.launch.format} --out FILE.`,
        );
      }
      return [
        `${lettingIn}, for ${tool} to mail.`,
        `Wrote ${options.out}: each address with its own leave link and wave. Delete it once the tool has it; export --launch --wave ${wave} writes it again.`,
        `${deleteFromTool(`wave ${wave}`, tool!)} stats reminds you from ${remindedFrom(at)}.`,
        ...warnings,
        ...missedLine,
        ...skipped,
        ...unsureLine,
      ].join("\n");
    }
    const outcome = await mailWave(
      store,
      taken.map((signup) => ({ ...signup, wave })),
      env,
      secret!,
      { pace: paceOf(opened, env), ...input },
    );
    return mailReport(
      [
        `${lettingIn}. Sent "You're in" to ${outcome.sent} of them (via ${outcome.destination}).`,
        ...missedLine,
        ...skipped,
        ...unsureLine,
      ],
      outcome,
      taken.length,
    );
  },
});
