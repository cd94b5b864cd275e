// The bench's mail provider: the tests' provider stand-in (test/support/mail-provider.ts), as strict as Amazon SES in
// production or Resend's free plan, on the bench's simulated clock. It refuses over its rate (454 after DATA, the
// message dropped), over its connections (421, at the greeting) and over its daily quota; each new connection takes
// its TLS handshake and AUTH, and each message a mail provider's time (drawn here, latency.ts); an outage switch
// refuses every recipient for now; and 2 % of addresses bounce for good and 0.1 % complain, each posted SNS-signed to
// the site's SES route a minute after the message, as SES posts them.
// What the bench reads of it: its counters (the most connections asked of it at once among them), the messages it
// took for an address after the site had taken that address's bounce or complaint (mailedAfterSuppression), the
// addresses it took one message for twice (mailedTwice), and the signups its replies refused for good
// (refusedForGood): each should be none.
import {
  chosenByShare,
  providerPresets,
  startMailProvider,
  type ProviderCounters,
  type ProviderProfile,
} from "../../test/support/mail-provider";
import { snsKey, type SnsKey } from "../../test/support/mail-webhooks";
import type { Delivery } from "../../test/support/smtp";
import { drawMail, seeded, type Latencies, type SimulatedTime } from "./latency";

/** The providers a bench deployment sends through: the stand-in's profile, and the site's MAIL_PROVIDER for it. */
export const benchProviders = {
  ses: { name: "ses", profile: providerPresets.sesProduction },
  "resend-free": { name: "resend-free", profile: providerPresets.resendFree },
} as const satisfies Record<string, { name: string; profile: ProviderProfile }>;
export type BenchProvider = keyof typeof benchProviders;

/** Who bounces and complains, and when the provider tells the site. */
export const mailEvents = { bounceShare: 0.02, complaintShare: 0.001, delayMs: 60_000 } as const;

/** Whether the provider bounces mail to `address` (as the stand-in chooses): that person never sees it to confirm. */
export const bounces = (address: string) => chosenByShare(address, mailEvents.bounceShare, "bounce");

/** What an SES notification posted over SNS tells: a bounce or a complaint, and of whom. */
export function readEvent(body: string): { kind: "bounce" | "complaint"; addresses: string[] } {
  const message = JSON.parse((JSON.parse(body) as { Message: string }).Message) as {
    bounce?: { bouncedRecipients: { emailAddress: string }[] };
    complaint?: { complainedRecipients: { emailAddress: string }[] };
  };
  const recipients = message.bounce?.bouncedRecipients ?? message.complaint?.complainedRecipients ?? [];
  return {
    kind: message.bounce ? "bounce" : "complaint",
    addresses: recipients.map((one) => one.emailAddress.toLowerCase()),
  };
}

/** The provider's figures a run reports: its limits, its counters (as the stand-in keeps them), and the mail after a
 * suppression. */
export interface ProviderFigures extends Omit<ProviderCounters, "deliveredTo"> {
  name: string;
  ratePerSecond: number | null;
  connections: number | null;
  dailyLimit: number | null;
  mailedAfterSuppression: number;
  mailedTwice: number;
}

/** Those figures, and the signups the provider's replies refused for good (refusedForGood): read from the list. */
export interface ProviderReport extends ProviderFigures {
  refusedForGood: number;
}

const counted = [
  "sent",
  "throttled",
  "dropped",
  "refusedForQuota",
  "refusedConnections",
  "bounced",
  "complained",
  "eventsFailed",
  "mailedAfterSuppression",
  "mailedTwice",
] as const;

/**
 * Two deployments' figures as one: their counts added, the most connections at once the larger; the name and limits
 * are the first's.
 */
export function sumProviderFigures<F extends ProviderFigures>(a: F, b: F): F {
  const sum = { ...a, maxConnections: Math.max(a.maxConnections, b.maxConnections) };
  for (const name of counted) sum[name] = a[name] + b[name];
  if ("refusedForGood" in a && "refusedForGood" in b) {
    (sum as unknown as ProviderReport).refusedForGood =
      (a as unknown as ProviderReport).refusedForGood + (b as unknown as ProviderReport).refusedForGood;
  }
  return sum;
}

/**
 * Addresses the provider took one message for more than once: the same Message-ID to the same recipient. A sender
 * that sent again a message whose outcome it did not know (a lapsed hold, a killed call) shows here.
 */
export function mailedTwice(deliveries: readonly Pick<Delivery, "envelope" | "mail">[]) {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const { envelope, mail } of deliveries) {
    for (const to of envelope.to) {
      const key = `${mail.messageId ?? ""} ${to.toLowerCase()}`;
      if (seen.has(key)) twice.add(to.toLowerCase());
      seen.add(key);
    }
  }
  return twice.size;
}

/**
 * Signups refused for good by the provider's replies while sending, not by a bounce it reported later: refused, and
 * not among the addresses whose bounce or complaint the site took (`reported`). The bench's provider refuses nobody
 * for good in its replies (a throttle, a quota, a connection past its limit, an outage are all for now), so any is
 * a reply taken as being about the person when it was not.
 */
export function refusedForGood(rows: readonly { email: string; state: string }[], reported: Map<string, number>) {
  return rows.filter((row) => row.state === "refused" && !reported.has(row.email.toLowerCase())).length;
}

/**
 * Messages the provider took for an address after the site had taken (answered 200) a bounce or complaint of it:
 * `taken` holds, for each address, when the first was taken (ms).
 */
export function mailedAfterSuppression(
  deliveries: readonly Pick<Delivery, "at" | "envelope">[],
  taken: Map<string, number>,
) {
  let count = 0;
  for (const { at, envelope } of deliveries) {
    for (const to of envelope.to) {
      const since = taken.get(to.toLowerCase());
      if (since !== undefined && at > since) count++;
    }
  }
  return count;
}

/**
 * The provider stand-in on `time`, with `provider`'s profile: each message takes a draw of `latencies.mail` (from its
 * MAIL FROM on; a conversation under way holds the clock), and with `eventsUrl` its bounces and complaints are posted
 * there. `mail.downUntil` refuses every recipient for now until then.
 */
export async function startBenchMail(
  time: SimulatedTime,
  {
    provider,
    latencies,
    seed,
    eventsUrl,
  }: { provider: BenchProvider; latencies: Latencies; seed: number; eventsUrl?: string },
) {
  const mail = { downUntil: 0, messages: 0 };
  const random = seeded(seed);
  const key: SnsKey | undefined = eventsUrl ? snsKey() : undefined;
  const server = await startMailProvider({
    profile: benchProviders[provider].profile,
    clock: () => Date.now(),
    // Its waits within a conversation (a new connection's TLS and AUTH), which holds the clock: let go meanwhile, as
    // beforeData does, so the simulated time passes.
    wait: async (ms) => {
      time.leave();
      await time.wait(ms);
      time.enter();
    },
    connectMs: latencies.mail.connectMs,
    ...(key && eventsUrl
      ? {
          bounceShare: mailEvents.bounceShare,
          complaintShare: mailEvents.complaintShare,
          events: {
            provider: "ses" as const,
            url: eventsUrl,
            delayMs: mailEvents.delayMs,
            signing: { snsKey: key.privateKey },
            wait: (ms: number) => time.wait(ms),
          },
        }
      : {}),
    smtp: {
      deferRecipient: () => Date.now() < mail.downUntil,
      onConnect: () => time.enter(),
      onClose: () => time.leave(),
      beforeData: async () => {
        if (Date.now() < mail.downUntil) return;
        mail.messages++;
        time.leave();
        await time.wait(drawMail(random, latencies.mail));
        time.enter();
      },
    },
  });
  return { server, mail, key, profile: benchProviders[provider].profile, name: provider };
}
