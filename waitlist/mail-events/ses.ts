import {
  answer,
  checkRequest,
  eventsFor,
  isoTime,
  jsonObject,
  refuse,
  wordsOf,
  type WebhookOutcome,
  type WebhookRequest,
} from "./events";
import { snsUrl, verifySnsMessage, type SnsSettings } from "./sns";

/*
 * Amazon SES's bounces and complaints, as SNS posts them over HTTPS: the SNS message verified (sns.ts), then SES's
 * JSON inside its Message, in either of SES's formats: notifications (notificationType) or event publishing through a
 * configuration set (eventType). https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html and
 * https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html
 */

/**
 * A subscription's confirmation asks for a GET of its SubscribeURL: handed back for the caller to fetch (with a time
 * limit), so that reading a webhook here never makes a request of its own but the certificate's.
 */
export type SesOutcome = WebhookOutcome | { status: 200; confirmSubscription: URL };

type Recipients = { emailAddress?: unknown }[];
interface SesNotification {
  notificationType?: unknown;
  eventType?: unknown;
  bounce?: { bounceType?: unknown; bounceSubType?: unknown; bouncedRecipients?: Recipients; timestamp?: unknown };
  complaint?: { complainedRecipients?: Recipients; timestamp?: unknown; complaintFeedbackType?: unknown };
}

const addresses = (recipients: Recipients | undefined) =>
  Array.isArray(recipients) ? recipients.map((recipient) => recipient?.emailAddress) : [];

/**
 * The bounce subtypes with which SES reports a message it never sent, the address being on its suppression list: the
 * account's (OnAccountSuppressionList) or SES's global one (Suppressed). A permanent bounce each time it is tried,
 * never a new one (https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html#bounce-types).
 */
const onSesList = (subType: unknown) => subType === "OnAccountSuppressionList" || subType === "Suppressed";

/** An SES event type named in a reason only when it is a plain word or two. */
const named = (type: unknown) => (typeof type === "string" && /^[A-Za-z ]{1,32}$/.test(type) ? type : "unknown");

export async function readSesWebhook(request: WebhookRequest, settings: SnsSettings = {}): Promise<SesOutcome> {
  const refused = checkRequest(request);
  if (refused) return refused;
  const body = jsonObject(request.body);
  if (!body) return refuse(400, "the body is not the JSON of an SNS message");
  const message = await verifySnsMessage(body, settings);
  if ("status" in message) return message;
  if (message.Type === "UnsubscribeConfirmation") {
    return { status: 200, ignored: "SNS confirms an unsubscription: nothing to do" };
  }
  if (message.Type === "SubscriptionConfirmation") {
    const url = snsUrl(message.SubscribeURL, /^\/$/);
    if (!url || url.searchParams.get("Action") !== "ConfirmSubscription") {
      return refuse(403, "the SubscribeURL is not a ConfirmSubscription on https://sns.<region>.amazonaws.com/");
    }
    return { status: 200, confirmSubscription: url };
  }
  // SES's first message to a topic is plain text ("Successfully validated SNS topic for Amazon SES ...").
  const notification = jsonObject(message.Message) as SesNotification | undefined;
  if (!notification) return { status: 200, ignored: "an SNS notification that is not SES's JSON" };
  const type = notification.notificationType ?? notification.eventType;
  const base = { provider: "ses" as const, at: isoTime(message.Timestamp, new Date().toISOString()) };
  if (type === "Bounce" && notification.bounce) {
    const { bounceType, bounceSubType, bouncedRecipients, timestamp } = notification.bounce;
    const bounce = {
      ...base,
      kind: "bounce" as const,
      permanent: bounceType === "Permanent",
      at: isoTime(timestamp, base.at),
      words: wordsOf("SES bounce type", bounceType, bounceSubType),
      ...(onSesList(bounceSubType) ? { alreadySuppressed: true as const } : {}),
    };
    return answer(eventsFor(addresses(bouncedRecipients), bounce, message.MessageId), "a bounce naming nobody");
  }
  if (type === "Complaint" && notification.complaint) {
    const { complainedRecipients, timestamp, complaintFeedbackType } = notification.complaint;
    // A mailbox provider's report that its user took the mail out of spam (RFC 5965's feedback type): no complaint.
    if (complaintFeedbackType === "not-spam") {
      return { status: 200, ignored: "an SES complaint of feedback type not-spam: the mail was wanted, nothing to do" };
    }
    const complaint = { ...base, kind: "complaint" as const, permanent: true, at: isoTime(timestamp, base.at) };
    return answer(
      eventsFor(addresses(complainedRecipients), complaint, message.MessageId),
      "a complaint naming nobody",
    );
  }
  return { status: 200, ignored: `an SES ${named(type)} notification: nothing to do` };
}
