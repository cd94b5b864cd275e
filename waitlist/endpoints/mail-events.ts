import getRawBody from "raw-body";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { clientKey } from "../client-address";
import { replyHeaders } from "../../http/headers";
import { actOnMailEvent, type ActingOptions } from "../mail-events/act";
import { maxWebhookBytes, type MailEvent, type WebhookRequest } from "../mail-events/events";
import { readPostmarkWebhook } from "../mail-events/postmark";
import { readResendWebhook } from "../mail-events/resend";
import { readSesWebhook, type SesOutcome } from "../mail-events/ses";
import { certificateFetcher, snsGet } from "../mail-events/sns";
import { redactAddresses } from "../mail/redact";
import { header, type FormReply, type FormRequest } from "./http";

/*
 * POST /waitlist/mail-events/<provider>: a provider's bounces and complaints (routes.ts names the paths). The raw body
 * is read, at most maxWebhookBytes (the signature is over its bytes), handed to the provider's reader in mail-events/,
 * and each event it verified acted on (mail-events/act.ts). Every reply is one line for the provider, and the same
 * line, naming nobody, is the request log's reason. A route whose setting is not set answers 404: SES without
 * SES_SNS_TOPIC_ARN would take any AWS account's validly signed fake bounces.
 */

export type MailProvider = MailEvent["provider"];
export const mailProviders = ["ses", "resend", "postmark"] as const satisfies readonly MailProvider[];

/** Each provider's setting (config/env.ts's waitlistConfig); a route is off while its own is not set. */
export interface MailEventSettings {
  /** SES_SNS_TOPIC_ARN: the SNS topics whose messages are taken. */
  sesTopicArns?: readonly string[];
  /** RESEND_WEBHOOK_SECRET. */
  resendSecret?: string;
  /** POSTMARK_WEBHOOK_AUTH: "user:password". */
  postmarkAuth?: string;
}

export interface MailEventsOptions extends ActingOptions {
  settings?: MailEventSettings;
  /**
   * How the SES route reaches SNS: its signing certificates, and a subscription's confirmation URL. The global fetch
   * by default, looked up at each call, so that a test may stand in for AWS.
   */
  fetch?: typeof fetch;
}

const reply = (status: number, line: string, headers: Record<string, string> = {}): FormReply => ({
  status,
  headers: { ...replyHeaders("text"), ...headers },
  body: `${line}\n`,
  reason: line,
});

/**
 * Failed tries of a route's credentials a client may make (a 401 or 403: unsigned, forged, a wrong password, a replay),
 * all three routes together, per server or function instance: a provider that is set up right fails none, and a
 * stranger guessing POSTMARK_WEBHOOK_AUTH, or making the SES route fetch certificates, is held for the rest of it.
 */
export const failedAuthLimit = { tries: 10, seconds: 600 } as const;

const unset = {
  ses: "SES_SNS_TOPIC_ARN",
  resend: "RESEND_WEBHOOK_SECRET",
  postmark: "POSTMARK_WEBHOOK_AUTH",
} as const satisfies Record<MailProvider, string>;

/** The three routes' endpoints, by provider. */
export function createMailEvents({ settings = {}, fetch: fetchWith, ...acting }: MailEventsOptions) {
  const failures = new RateLimiterMemory({ points: failedAuthLimit.tries, duration: failedAuthLimit.seconds });
  const fetchNow: typeof fetch = (...args) => (fetchWith ?? globalThis.fetch)(...args);
  // One for the endpoint's life: sns.ts keeps the certificates it fetched by it.
  const fetchCertificate = certificateFetcher(fetchNow);
  const readers: Record<MailProvider, ((request: WebhookRequest) => Promise<SesOutcome>) | undefined> = {
    ses: settings.sesTopicArns
      ? (request) => readSesWebhook(request, { topicArns: settings.sesTopicArns, fetchCertificate })
      : undefined,
    resend: settings.resendSecret
      ? async (request) => readResendWebhook(request, { secret: settings.resendSecret! })
      : undefined,
    postmark: settings.postmarkAuth
      ? async (request) => readPostmarkWebhook(request, { auth: settings.postmarkAuth! })
      : undefined,
  };

  async function answer(provider: MailProvider, request: WebhookRequest): Promise<FormReply> {
    const outcome = await readers[provider]!(request);
    if ("reason" in outcome) return reply(outcome.status, outcome.reason);
    if ("ignored" in outcome) return reply(200, outcome.ignored);
    if ("confirmSubscription" in outcome) {
      const confirmed = await snsGet(fetchNow, outcome.confirmSubscription).catch((error: Error) => error);
      if (confirmed instanceof Error || !confirmed.ok) {
        // 5xx: SNS sends the confirmation again.
        const why = confirmed instanceof Error ? confirmed.message : `it answered ${confirmed.status}`;
        return reply(502, `the SNS subscription could not be confirmed (${why}); SNS will ask again`);
      }
      return reply(200, "confirmed the SNS subscription: its notifications are taken from now on");
    }
    const lines: string[] = [];
    // One at a time: a notification naming the same address twice acts on it once, then finds it done.
    for (const event of outcome.events) lines.push((await actOnMailEvent(event, acting)).line);
    return reply(200, lines.join("; "));
  }

  const endpoint = (provider: MailProvider) => ({
    async handle(request: FormRequest): Promise<FormReply> {
      if (!readers[provider]) {
        return reply(404, `${provider} events are not taken here: ${unset[provider]} is not set`);
      }
      if (request.method !== "POST") {
        return reply(405, `${request.method} is not how a provider posts its events: POST them`);
      }
      const client = clientKey(request.clientIp);
      const failed = await failures.get(client);
      if (failed && failed.consumedPoints >= failedAuthLimit.tries) {
        const seconds = String(Math.max(1, Math.ceil(failed.msBeforeNext / 1000)));
        return reply(
          429,
          `too many failed tries of this route's credentials from your network: try again in ${seconds} seconds`,
          { "Retry-After": seconds },
        );
      }
      let body: Buffer;
      try {
        body = await getRawBody(request.body, {
          limit: maxWebhookBytes,
          length: header(request.headers, "content-length"),
        });
      } catch (error) {
        if ((error as { type?: string }).type === "entity.too.large") {
          return reply(413, `the body is over ${maxWebhookBytes} bytes, larger than any provider's event`);
        }
        return reply(400, "the body could not be read");
      }
      try {
        const answered = await answer(provider, { method: request.method, headers: request.headers, body });
        if (answered.status === 401 || answered.status === 403) await failures.penalty(client);
        return answered;
      } catch (error) {
        // A settings mistake, a certificate out of reach, the store failing: 500, and the provider tries again.
        return reply(500, `not taken, for now: ${redactAddresses((error as Error).message)}`);
      }
    },
  });
  return { ses: endpoint("ses"), resend: endpoint("resend"), postmark: endpoint("postmark") };
}

export type MailEventEndpoints = ReturnType<typeof createMailEvents>;
