import pLimit from "p-limit";
import { letInMessage } from "../mail/let-in-message";
import type { Lane } from "../mail/sender";
import { isMember, whyNotMailed, type NotMailed } from "../signup-life/rules";
import type { Signup } from "../signup-life/types";
import type { WaitlistSite } from "../site-settings";
import type { FullStore } from "../stores/store";
import type { FingerprintKey } from "../fingerprints";
import { suppressedUntilBy } from "../suppressions";
import { chooseWave, nextWave, type WaveOrder } from "../waves";

/*
 * A launch wave (npm run waitlist -- let-in): the next confirmed signups in no wave, chosen in the order the Privacy
 * Policy names (waves.ts), each let in by its key (the store's letIn: one atomic step, so two runs never put one person
 * in two waves), then e-mailed "You're in" through the one sender, or handed to the launch tool in a file.
 *
 * Each e-mail is taken in the store before it is sent and marked sent after (signup-life's letInMailStep): a run
 * stopped half-way leaves the rest owed, and the next run sends them and starts no new wave; nobody is mailed twice.
 * Taking it is also the check that the person is still listed as let in. One taken and never known sent (a crash
 * between taking and sending, or a connection dropped as it was sent) stays "sending": reported, and never sent again
 * rather than maybe twice.
 */

/** Lets in at once: each a read and a compare-and-swap (a few Netlify API calls with --netlify). */
const lettingInAtOnce = 8;

/** Whoever is let in, with the e-mail's state kept as the store has it. */
export type WavePerson = Pick<Signup, "email" | "emailKey" | "createdAt" | "state" | "restrictedAt"> & { wave: number };

/** What the "You're in" e-mail carries besides the person: the site, the way in, who sends it. */
export interface WaveMail extends WaitlistSite {
  linkSecret: string;
  /** LAUNCH_URL. */
  launchUrl: string;
  postalAddress: string;
}

/** The wave's e-mail as the sender takes it: see the file's header. */
export function waveLane(store: Pick<FullStore, "letInMail">, mail: WaveMail): Lane<WavePerson> {
  const step = (person: WavePerson, to: "sent" | "back" | "refuse") =>
    store.letInMail(person.emailKey, to, person.wave).then(() => undefined);
  return {
    kind: "wave",
    async claim(person) {
      // Still listed, still let in with this wave, and no other run's to send.
      if (!(await store.letInMail(person.emailKey, "take", person.wave))) return "not-ours";
      // A wave stopped half-way may be finished days later: one the mail can no longer reach is refused, so that no
      // later run owes it.
      return whyNotMailed("wave", person) ?? 1;
    },
    message: (person) => letInMessage(person.email, { ...person, ...mail }),
    sent: (person) => step(person, "sent"),
    refused: (person) => step(person, "refuse"),
    retry: (person) => step(person, "back"),
    held: (person) => step(person, "back"),
    // Stays "sending": it may have gone, and is never sent again.
    unknown: async () => undefined,
  };
}

/** Where the waves' e-mails stand: those owed by a wave stopped half-way, and how many may or may not have gone. */
export function wavesUnfinished(everyone: readonly Signup[]) {
  return {
    owed: everyone.filter((one) => one.letInMail === "owed").map((one) => ({ ...one, wave: one.wave! })),
    unsure: everyone.filter((one) => one.letInMail === "sending").length,
  };
}

/**
 * The next wave of those the mail may reach: chooseWave leaves out whom the rule does (signup-life's mayBeLetIn), and
 * this one those whose address or mailbox is held after a bounce or a spam complaint (suppressions.ts), looked up by
 * key as each is chosen, until the wave is full of the rest. Without a fingerprint key (a dry run on a list that has
 * none yet) nothing can be held.
 */
export async function chooseReachable(
  store: Pick<FullStore, "suppressedUntil">,
  everyone: readonly Signup[],
  choice: { count: number; order: WaveOrder },
  key: FingerprintKey | undefined,
) {
  const [held, clear] = [new Set<string>(), new Set<string>()];
  const limit = pLimit(lettingInAtOnce);
  for (;;) {
    const chosen = chooseWave(everyone, { ...choice, skip: (one) => held.has(one.emailKey) });
    const unchecked = key === undefined ? [] : chosen.filter(({ signup }) => !clear.has(signup.emailKey));
    if (unchecked.length === 0) return { chosen, suppressed: held.size };
    const lookUp = async (emailKey: string) =>
      ((await suppressedUntilBy(store, key!, emailKey, new Date())) ? held : clear).add(emailKey);
    await Promise.all(unchecked.map(({ signup }) => limit(() => lookUp(signup.emailKey))));
  }
}

/** Those a wave leaves out by the rule, of the confirmed in no wave: restricted, undeliverable. */
export function leftOutByRule(everyone: readonly Signup[]): Partial<Record<NotMailed, number>> {
  const counts: Partial<Record<NotMailed, number>> = {};
  for (const one of everyone) {
    if (!isMember(one) || one.wave !== null) continue;
    const why = whyNotMailed("wave", one);
    if (why !== undefined) counts[why] = (counts[why] ?? 0) + 1;
  }
  return counts;
}

/**
 * Lets the chosen in as one wave, under a number no run has used (store.once, even when two run at once): those
 * taken, the wave's number, and how many left or joined another wave meanwhile.
 */
export async function letInWave(
  store: Pick<FullStore, "once" | "letIn">,
  everyone: readonly Signup[],
  chosen: readonly { signup: Signup }[],
  { mail, at = new Date() }: { mail: boolean; at?: Date },
) {
  let wave = nextWave(everyone);
  while (!(await store.once(`wave-${wave}`))) wave++;
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
  return { wave, at, taken: taken.map((signup) => ({ ...signup, wave })), missed: chosen.length - taken.length };
}
