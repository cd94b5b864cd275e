import { Webhook, WebhookVerificationError } from "standardwebhooks";
import {
  answer,
  checkRequest,
  eventsFor,
  header,
  isoTime,
  jsonObject,
  refuse,
  wordsOf,
  type WebhookOutcome,
  type WebhookRequest,
} from "./events";

/*
 * Resend's bounces, complaints and the e-mails it did not send to an address on its suppression list. Resend signs through Svix (https://resend.com/docs/dashboard/webhooks/verify-
 * webhooks-requests): an HMAC-SHA256 of "id.timestamp.body" under the secret's key, checked by standardwebhooks, the
 * Standard Webhooks library that Svix's own `svix` package verifies with (lighter: no API client), in constant time,
 * with Svix's ±5 minutes around its clock (Date.now, which the bench's fake timers move) against a replay.
 */

export interface ResendWebhookSettings {
  /** RESEND_WEBHOOK_SECRET: the webhook's signing secret, "whsec_" and its key in base64. */
  secret: string;
}

function verifier(secret: string): Webhook {
  try {
    if (!secret.startsWith("whsec_")) throw new Error("no whsec_ prefix");
    return new Webhook(secret);
  } catch {
    throw new Error(
      "RESEND_WEBHOOK_SECRET is not a Resend signing secret: copy the whsec_... secret from the webhook's page in Resend",
    );
  }
}

interface ResendEvent {
  type?: unknown;
  created_at?: unknown;
  data?: { email_id?: unknown; to?: unknown; bounce?: { type?: unknown; subType?: unknown; message?: unknown } };
}

export function readResendWebhook(request: WebhookRequest, { secret }: ResendWebhookSettings): WebhookOutcome {
  const refused = checkRequest(request);
  if (refused) return refused;
  const webhook = verifier(secret);
  const [id, timestamp, signature] = ["svix-id", "svix-timestamp", "svix-signature"].map((name) =>
    header(request, name),
  );
  if (!id || !timestamp || !signature) {
    return refuse(401, "unsigned: svix-id, svix-timestamp or svix-signature is missing");
  }
  try {
    // Svix's headers under the names the Standard Webhooks library reads, as the svix package passes them.
    const headers = { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature };
    webhook.verify(request.body, headers, { jsonParse: false });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    if (/timestamp too (?:old|new)/i.test(error.message)) {
      return refuse(403, "replayed or delayed: svix-timestamp is more than 5 minutes from this server's clock");
    }
    if (/invalid signature headers/i.test(error.message)) return refuse(403, "svix-timestamp is not a Unix time");
    return refuse(403, "forged: no v1 signature in svix-signature matches the body under RESEND_WEBHOOK_SECRET");
  }
  const event = jsonObject(request.body) as ResendEvent | undefined;
  if (!event) return refuse(400, "the signed body is not the JSON of a Resend event");
  const { email_id: emailId, to, bounce } = event.data ?? {};
  const recipients = Array.isArray(to) ? to : [to];
  const base = { provider: "resend" as const, at: isoTime(event.created_at, new Date().toISOString()) };
  const eventId = `${String(emailId)}:${String(event.type)}`;
  if (event.type === "email.bounced") {
    // Resend passes on SES's bounce type (https://resend.com/docs/webhooks/emails/bounced): "Permanent" is hard.
    const permanent = bounce?.type === "Permanent";
    const words = wordsOf("Resend bounce", bounce?.type, bounce?.subType, bounce?.message);
    // And SES's subtypes, those of an address on the list already among them (ses.ts).
    const listed = permanent && (bounce?.subType === "OnAccountSuppressionList" || bounce?.subType === "Suppressed");
    const already = listed ? { alreadySuppressed: true as const } : {};
    return answer(
      eventsFor(recipients, { ...base, kind: "bounce", permanent, words, ...already }, eventId),
      "a bounce naming nobody",
    );
  }
  if (event.type === "email.suppressed") {
    // Resend sent nothing: the address is on the team's suppression list, after a bounce or a complaint
    // (https://resend.com/changelog/email-suppression-visibility).
    const suppressed = { ...base, kind: "bounce" as const, permanent: true, alreadySuppressed: true as const };
    const words = "Resend suppressed it: the address is on Resend's suppression list";
    return answer(eventsFor(recipients, { ...suppressed, words }, eventId), "a suppressed e-mail naming nobody");
  }
  if (event.type === "email.complained") {
    const complaint = { ...base, kind: "complaint" as const, permanent: true };
    return answer(eventsFor(recipients, complaint, eventId), "a complaint naming nobody");
  }
  const type = typeof event.type === "string" && /^[a-z_.]{1,40}$/.test(event.type) ? event.type : "unknown";
  return { status: 200, ignored: `a Resend ${type} event: nothing to do` };
}
