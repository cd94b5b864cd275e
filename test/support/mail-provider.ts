import { createHash } from "node:crypto";
import { startSmtpServer, type ServerReply, type TestSmtpServer } from "./smtp";
import { providerWebhook, type Provider, type WebhookSigning } from "./mail-webhooks";

/*
 * A mail provider as strict as a real one, over the tests' SMTP server: its sending rate, its connections, its daily
 * quota, its time over each message, and the bounces and complaints it posts later to a webhook, signed as it signs
 * them. Its refusals are the providers' own words (waitlist/mail/replies.ts reads them).
 */

export interface ProviderProfile {
  /** Messages taken in any one second (a sliding window over the messages taken). */
  ratePerSecond?: number;
  /** Messages taken in any one minute. */
  ratePerMinute?: number;
  /**
   * Over the rate: "refuse" answers after DATA and drops the message, as SES does; "hold" keeps it until the rate
   * allows, as Microsoft 365 carries the excess over to the next minutes.
   */
  overRate?: "refuse" | "hold";
  /** Connections open at once; one more is refused and closed. */
  connections?: number;
  /** Messages taken in one UTC day, by the provider's clock. */
  dailyLimit?: number;
  /** The provider's own words; SES's by default. */
  replies?: Partial<Record<"throttle" | "quota" | "connections", ServerReply>>;
}

const sesReplies = {
  throttle: { code: 454, text: "Throttling failure: Maximum sending rate exceeded." },
  quota: { code: 454, text: "Throttling failure: Daily message quota exceeded." },
  connections: { code: 421, text: "Too many concurrent SMTP connections" },
};

/**
 * Each provider's limits on a new account. SES: docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas.html (the
 * sandbox's 1 a second and 200 a day; production's first quotas); Resend: resend.com/docs/knowledge-base/account-
 * quotas-and-limits (100 a day free) and /api-reference/rate-limit (2 requests a second, since raised to 5);
 * Microsoft 365: learn.microsoft.com/exchange/troubleshoot/send-emails/smtp-submission-improvements. Postmark's 10
 * connections is the team's figure, not found in Postmark's documentation.
 */
export const providerPresets = {
  sesSandbox: { ratePerSecond: 1, dailyLimit: 200 },
  sesProduction: { ratePerSecond: 14, connections: 10, dailyLimit: 50_000 },
  resendFree: { ratePerSecond: 2, dailyLimit: 100 },
  postmark: { connections: 10 },
  microsoft365: {
    ratePerMinute: 30,
    overRate: "hold",
    connections: 3,
    dailyLimit: 10_000,
    replies: {
      connections: { code: 432, text: "4.3.2 Concurrent connections limit exceeded." },
      quota: { code: 554, text: "5.2.0 STOREDRV.Submission.Exception:SubmissionQuotaExceededException" },
    },
  },
  plainSmtp: {},
} satisfies Record<string, ProviderProfile>;

/**
 * How the provider answers, beside its limits, as a test switches it (MailProvider.setReplyMode):
 * - "relayDenied": a relay that wants authentication refuses every recipient, `550 5.7.1 Relaying denied`, as a
 *   provider misconfigured for an hour does (about the sending: it must refuse nobody for good);
 * - "dropAfterData": it takes each message and drops the connection before its reply, as a connection lost between
 *   the two does (the sender cannot know the message went: replies.ts's "unknown").
 */
export type ReplyMode = "normal" | "relayDenied" | "dropAfterData";

/** The reply of "relayDenied", word for word. */
export const relayDenied: ServerReply = { code: 550, text: "5.7.1 Relaying denied" };

export interface MailProviderOptions {
  profile?: ProviderProfile;
  /** The provider's clock (ms): a simulation's in the bench. */
  clock?: () => number;
  /** How the provider waits during a conversation: the bench's simulated time; real time by default. */
  wait?: (ms: number) => Promise<void>;
  /**
   * Its time over each new connection before the greeting: the TLS handshake and AUTH a real provider charges (two or
   * three round trips and a password check, 100 to 300 ms from a function's region). None by default.
   */
  connectMs?: number;
  /** Its time over each message, drawn evenly from the range with `random`. */
  latencyMs?: number | [number, number];
  random?: () => number;
  /** The share of addresses that bounce for good, or who does; chosenByShare decides, so a bench can predict it. */
  bounceShare?: number;
  bounces?: (address: string) => boolean;
  complaintShare?: number;
  complains?: (address: string) => boolean;
  /** Where bounces and complaints are posted, after `delayMs`, as `provider` signs them. */
  events?: {
    provider: Provider;
    url: string;
    delayMs?: number;
    signing: WebhookSigning;
    wait?: (ms: number) => Promise<void>;
  };
  /** Anything else of the SMTP server's (the bench's onConnect and onClose). */
  smtp?: Parameters<typeof startSmtpServer>[1];
  /** How it answers at first: "normal" unless said. */
  replyMode?: ReplyMode;
}

export interface ProviderCounters {
  sent: number;
  /** Refused over the rate, and dropped. */
  throttled: number;
  /** Every message refused after DATA: over the rate or the quota. */
  dropped: number;
  refusedForQuota: number;
  refusedConnections: number;
  /** The most connections the senders had open at once, or asked for: one refused counts among them. */
  maxConnections: number;
  bounced: number;
  complained: number;
  /** Events the webhook did not take (not 2xx, or unreachable). */
  eventsFailed: number;
  /** Messages taken, by recipient. */
  deliveredTo: Map<string, number>;
}

export interface MailProvider extends TestSmtpServer {
  counters: ProviderCounters;
  /** Resolves once every event due so far is posted. */
  settled(): Promise<void>;
  /** From now on answers as `mode` says (ReplyMode). */
  setReplyMode(mode: ReplyMode): void;
}

/** Whether `address` is among `share` of all addresses: a hash of it, the same on every run. */
export function chosenByShare(address: string, share: number, salt: string): boolean {
  const digest = createHash("sha256").update(`${salt}:${address.toLowerCase()}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < share;
}

const realWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const dayMs = 24 * 60 * 60 * 1000;

export async function startMailProvider(options: MailProviderOptions = {}): Promise<MailProvider> {
  const { profile = {}, clock = Date.now, wait = realWait, latencyMs = 0, random = Math.random, events } = options;
  const replies = { ...sesReplies, ...profile.replies };
  const bounces = options.bounces ?? ((address) => chosenByShare(address, options.bounceShare ?? 0, "bounce"));
  const complains =
    options.complains ?? ((address) => chosenByShare(address, options.complaintShare ?? 0, "complaint"));
  const counters: ProviderCounters = {
    ...{ sent: 0, throttled: 0, dropped: 0, refusedForQuota: 0, refusedConnections: 0, maxConnections: 0 },
    ...{ bounced: 0, complained: 0, eventsFailed: 0, deliveredTo: new Map<string, number>() },
  };
  const open = new Set<string>();
  /** When each message of the last minute was taken. */
  let taken: number[] = [];
  const perDay = new Map<number, number>();
  const pending = new Set<Promise<void>>();

  /** How long until the rate takes one more message: 0 when it does now. */
  function overRate(now: number): number {
    taken = taken.filter((at) => now - at < 60_000);
    const limits: [number | undefined, number][] = [
      [profile.ratePerSecond, 1_000],
      [profile.ratePerMinute, 60_000],
    ];
    let waitMs = 0;
    for (const [limit, windowMs] of limits) {
      const inWindow = taken.filter((at) => now - at < windowMs);
      if (limit !== undefined && inWindow.length >= limit) {
        waitMs = Math.max(waitMs, inWindow[inWindow.length - limit]! + windowMs - now);
      }
    }
    return waitMs;
  }

  function post(to: NonNullable<MailProviderOptions["events"]>, kind: "bounce" | "complaint", address: string) {
    const { provider, url, delayMs = 0, signing, wait: later = wait } = to;
    const posting = (async () => {
      await later(delayMs);
      const { headers, body } = providerWebhook(provider, { kind, address, permanent: true, at: clock() }, signing);
      const response = await fetch(url, { method: "POST", headers, body }).catch(() => undefined);
      if (!response?.ok) counters.eventsFailed++;
    })();
    pending.add(posting);
    void posting.finally(() => pending.delete(posting));
  }

  async function afterData({ to }: { to: string[] }): Promise<ServerReply | undefined> {
    const day = Math.floor(clock() / dayMs);
    if (profile.dailyLimit !== undefined && (perDay.get(day) ?? 0) >= profile.dailyLimit) {
      counters.refusedForQuota++;
      counters.dropped++;
      return replies.quota;
    }
    for (let waitMs = overRate(clock()); waitMs > 0; waitMs = overRate(clock())) {
      if (profile.overRate !== "hold") {
        counters.throttled++;
        counters.dropped++;
        return replies.throttle;
      }
      await wait(waitMs);
    }
    taken.push(clock());
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
    const [low, high] = typeof latencyMs === "number" ? [latencyMs, latencyMs] : latencyMs;
    if (high > 0) await wait(low + random() * (high - low));
    counters.sent++;
    for (const address of to) {
      counters.deliveredTo.set(address, (counters.deliveredTo.get(address) ?? 0) + 1);
      // A message that bounced reached no inbox, so no one complains of it.
      const kind = bounces(address) ? "bounce" : complains(address) ? "complaint" : undefined;
      if (kind === "bounce") counters.bounced++;
      if (kind === "complaint") counters.complained++;
      if (kind && events) post(events, kind, address);
    }
    return undefined;
  }

  let replyMode = options.replyMode ?? "normal";
  const server = await startSmtpServer(0, {
    ...options.smtp,
    replyToRecipient: (address) =>
      replyMode === "relayDenied" ? relayDenied : options.smtp?.replyToRecipient?.(address),
    dropAfterData: (envelope) => replyMode === "dropAfterData" || (options.smtp?.dropAfterData?.(envelope) ?? false),
    async admit(sessionId) {
      counters.maxConnections = Math.max(counters.maxConnections, open.size + 1);
      if (profile.connections !== undefined && open.size >= profile.connections) {
        counters.refusedConnections++;
        return replies.connections;
      }
      open.add(sessionId);
      if (options.connectMs) await wait(options.connectMs);
      return undefined;
    },
    onSessionClose: (sessionId) => open.delete(sessionId),
    afterData,
  });
  return {
    ...server,
    counters,
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    setReplyMode(mode) {
      replyMode = mode;
    },
  };
}
