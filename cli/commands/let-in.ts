import { mailConfig, waitlistConfig, type Env } from "../../config/env";
import { launchList } from "../../waitlist/launch/launch-list";
import { mailEach } from "../../waitlist/launch/mail-run";
import {
  chooseReachable,
  leftOutByRule,
  letInWave,
  waveLane,
  wavesUnfinished,
  type WavePerson,
} from "../../waitlist/launch/wave";
import { createMailer } from "../../waitlist/mail/mailer";
import { fingerprintKeyOf } from "../../waitlist/fingerprints";
import { createSender } from "../../waitlist/mail/sender";
import { neverAsked } from "../../waitlist/signup-life/rules";
import { leaveUrl } from "../../waitlist/tokens";
import { nextWave } from "../../waitlist/waves";
import { command } from "../command";
import { PendingError, UsageError } from "../errors";
import { namedLaunchTool, writeLaunchFile } from "../launch-file";
import { dryRunWave, leftOutWords, stopSignalsWhile, waveReport } from "../launch-words";
import { checkLetIn } from "../let-in-options";
import { existingFingerprintKey, linkSecretOf, paceOf, type OpenedStore } from "../open-store";
import { plural, postalAddressShown } from "../sender";
import { deleteFromTool, remindedFrom } from "../tool-waves";

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

/**
 * Mails the wave's e-mail to each of `people` through the one sender, within the provider's limits together with
 * every other sender (the shared pace), at `perSecond` at most if the founder says so (waitlist/launch/mail-run.ts).
 */
async function mailWave(opened: OpenedStore, people: readonly WavePerson[], env: Env, perSecond?: number) {
  const { store } = opened;
  const linkSecret = await linkSecretOf(opened, env);
  const config = mailConfig(env);
  const mailer = createMailer(config);
  const pace = paceOf(opened, env);
  const sender = createSender({ store, mailer, pace, secret: linkSecret });
  const { siteUrl, contactEmail } = waitlistConfig(env);
  const lane = waveLane(store, {
    siteUrl,
    contactEmail,
    linkSecret,
    launchUrl: env.LAUNCH_URL!,
    postalAddress: postalAddressShown(env),
  });
  // Slower still than the shared pace when the founder asks (--per-second); the outbox has none.
  const outcome = await stopSignalsWhile((stopped) =>
    mailEach(sender, lane, people, { pace, perSecond: config.smtpUrl ? perSecond : undefined, stopped }).finally(() =>
      mailer.close(),
    ),
  );
  return { ...outcome, destination: mailer.destination };
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
    const tool = input.launch ? await namedLaunchTool(waitlistConfig(env).siteUrl) : undefined;
    const { store } = opened;
    const everyone = await store.all();
    const { owed: unfinished, unsure } = wavesUnfinished(everyone);
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
      const outcome = await mailWave(opened, unfinished, env, input.perSecond);
      return waveReport(
        [
          intro,
          `Sent ${outcome.sent} of them (via ${outcome.destination}). No new wave was started: run let-in again for the next.`,
          ...unsureLine,
        ],
        outcome,
        unfinished.length,
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
    const key =
      secret === undefined ? await existingFingerprintKey(opened, env) : await fingerprintKeyOf(store, secret);
    const { chosen, suppressed } = await chooseReachable(store, everyone, input, key);
    const skipped = leftOutWords(leftOutByRule(everyone), "wave", suppressed);
    const by = input.order === "invites" ? "by invites" : "in the order of signup";
    if (chosen.length === 0) {
      return [
        "Nobody to let in: every confirmed signup is in a wave already (or none has confirmed).",
        ...skipped,
        ...askFirstLine,
      ].join("\n");
    }
    if (options["dry-run"]) {
      const would = dryRunWave(chosen, { order: input.order, launchTool: Boolean(options["launch-tool"]), env });
      const wave = `Would let in ${plural(chosen.length, "person", "people")} as wave ${nextWave(everyone)}, ${by}`;
      return [`${wave}, ${would.how}:`, ...would.lines, ...skipped, ...askFirstLine].join("\n");
    }

    const mail = input.launch === undefined;
    const { wave, at, taken, missed } = await letInWave(store, everyone, chosen, { mail });
    if (taken.length === 0) {
      return `Nobody let in: each of the ${plural(chosen.length, "person", "people")} chosen left, or another run let them in, meanwhile. Wave ${wave}'s number is spent; run let-in again.`;
    }
    const lettingIn = `Wave ${wave}: let in ${plural(taken.length, "person", "people")}, ${by}`;
    const missedLine =
      missed > 0 ? [`${plural(missed, "person", "people")} left or joined another wave meanwhile.`] : [];

    if (input.launch) {
      const { siteUrl } = waitlistConfig(env);
      // In the order of signup, as export --launch --wave writes it again.
      const inWave = taken
        .map((signup) => ({ ...signup, letInMail: "launch-tool" as const }))
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
    const outcome = await mailWave(opened, taken, env, input.perSecond);
    return waveReport(
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
