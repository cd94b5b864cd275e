/*
 * What a provider's bounce and complaint webhook says, once its signature holds: the same few facts whoever sent it.
 * Each provider's file takes the raw request and answers a refusal, an acknowledgement with nothing to do, or events;
 * none touches the store, and no reason or log line here holds an address.
 */

/** The largest body read: an SNS message is at most 256 KB, and an SES, Resend or Postmark event a few KiB. */
export const maxWebhookBytes = 256 * 1024;

/** A webhook's request as it arrived: the caller stops reading the body past maxWebhookBytes. */
export interface WebhookRequest {
  method: string;
  /** Header names in lower case, as Node's IncomingMessage gives them. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body: a signature is over its exact bytes. */
  body: Buffer | string;
}

export interface MailEvent {
  provider: "ses" | "resend" | "postmark";
  /** The provider's id of the event, for the caller's once-per-id check ("/2" added for a second recipient). */
  id: string;
  kind: "bounce" | "complaint";
  /** A hard bounce, or any complaint: the address is refused. A soft one only says this message did not arrive. */
  permanent: boolean;
  /** As the provider wrote it: the caller makes it canonical (email-address.ts). */
  address: string;
  /** ISO 8601. */
  at: string;
  /** What the provider said of a bounce (its type, its server's words), as it wrote them: they may quote the address. */
  words?: string;
  /**
   * The provider sent nothing: the address is on its own suppression list already (SES's OnAccountSuppressionList,
   * Resend's email.suppressed, Postmark's ManuallyDeactivated). No new bounce: act.ts holds the address if it is not
   * held, and counts nothing.
   */
  alreadySuppressed?: true;
}

/** A refusal, with one line for the request log in the operator's words (never an address). */
export interface WebhookRefusal {
  status: 400 | 401 | 403 | 405 | 413;
  reason: string;
}

/**
 * What to answer: a refusal; 200 with nothing to do, for what the provider would otherwise send again and again (an
 * event type of no use here, a delivery, a delay); or 200 and the events. A settings mistake (a secret that is not
 * one) is thrown instead, for the caller to answer 500: the provider retries until it is put right.
 */
export type WebhookOutcome = WebhookRefusal | { status: 200; ignored: string } | { status: 200; events: MailEvent[] };

export const refuse = (status: WebhookRefusal["status"], reason: string): WebhookRefusal => ({ status, reason });

export function header(request: WebhookRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The checks every endpoint starts with: a POST, no larger than maxWebhookBytes. */
export function checkRequest(request: WebhookRequest): WebhookRefusal | undefined {
  if (request.method !== "POST") return refuse(405, `${request.method} is not how a provider posts its events`);
  if (Buffer.byteLength(request.body) > maxWebhookBytes) {
    return refuse(413, `the body is over ${maxWebhookBytes} bytes, larger than any provider's event`);
  }
  return undefined;
}

/** The body as JSON, an object; undefined when it is not one. */
export function jsonObject(text: Buffer | string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text.toString());
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A time the provider wrote, as ISO 8601; `fallback` when it wrote none that parses. */
export function isoTime(value: unknown, fallback: string): string {
  const time = typeof value === "string" || typeof value === "number" ? new Date(value) : undefined;
  return time && !Number.isNaN(time.getTime()) ? time.toISOString() : fallback;
}

/** The provider's words of a bounce: its parts that are text, joined; undefined when none is. */
export function wordsOf(...parts: unknown[]): string | undefined {
  const said = parts.filter((part): part is string => typeof part === "string" && part.trim() !== "");
  return said.length > 0 ? said.join(" ").slice(0, 500) : undefined;
}

/** One event per address: ids stay unique when one notification names several recipients. */
export function eventsFor(
  addresses: readonly unknown[],
  base: Omit<MailEvent, "address" | "id">,
  id: string,
): MailEvent[] {
  const named = addresses.filter((address): address is string => typeof address === "string" && address !== "");
  return named.map((address, index) => ({ ...base, id: index === 0 ? id : `${id}/${index + 1}`, address }));
}

/** 200 with the events, or with nothing to do when the notification named nobody. */
export function answer(events: MailEvent[], nobody: string): WebhookOutcome {
  return events.length > 0 ? { status: 200, events } : { status: 200, ignored: nobody };
}
