import { createHash, timingSafeEqual } from "node:crypto";
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
 * Postmark's bounce and spam complaint webhooks (https://postmarkapp.com/developer/webhooks/bounce-webhook,
 * .../spam-complaint-webhook). Postmark signs nothing: it sends the user and password written into the webhook's URL
 * as HTTP basic auth, and no time, so a captured request can be sent again; the caller's once-per-id check on the
 * event's ID is what makes a replay change nothing.
 */

export interface PostmarkWebhookSettings {
  /** POSTMARK_WEBHOOK_AUTH: "user:password", as written into the webhook URL in Postmark. */
  auth: string;
}

/**
 * Bounce types (https://postmarkapp.com/developer/api/bounce-api#bounce-types) that refuse the address: the server
 * has no such mailbox, the address is not one, or it was deactivated by hand. Postmark also deactivates an address
 * it will not send to again (Inactive: it answers 406 to a send until reactivated), whatever the type.
 */
const hard = new Set(["HardBounce", "BadEmailAddress", "ManuallyDeactivated"]);
/**
 * The type that is no bounce of a message but an address put on Postmark's inactive list by hand: already suppressed
 * there. (Inactive on a HardBounce is that bounce deactivating the address: a new bounce. A send to an address already
 * inactive is refused at once, 406, and no webhook is posted for it.)
 */
const onPostmarkList = "ManuallyDeactivated";
/** Types that say nothing about delivery: a delay Postmark retries itself, an auto-reply, a list request, a test. */
const noFailure = new Set([
  "Transient",
  "Unsubscribe",
  "Subscribe",
  "AutoResponder",
  "AddressChange",
  "OpenRelayTest",
  "ChallengeVerification",
  "SMTPApiError",
  "InboundError",
  "Unconfirmed",
  "TemplateRenderingFailed",
]);

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
/** Equal in time that says nothing of where they differ: both sides hashed to one length first. */
const same = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

function credentials(auth: string): [string, string] {
  const colon = auth.indexOf(":");
  if (colon < 1 || colon === auth.length - 1) {
    throw new Error('POSTMARK_WEBHOOK_AUTH is not "user:password": write the two the webhook URL in Postmark holds');
  }
  return [auth.slice(0, colon), auth.slice(colon + 1)];
}

interface PostmarkRecord {
  RecordType?: unknown;
  Type?: unknown;
  ID?: unknown;
  MessageID?: unknown;
  Email?: unknown;
  BouncedAt?: unknown;
  Inactive?: unknown;
  Description?: unknown;
  Details?: unknown;
}

export function readPostmarkWebhook(request: WebhookRequest, { auth }: PostmarkWebhookSettings): WebhookOutcome {
  const refused = checkRequest(request);
  if (refused) return refused;
  const [user, password] = credentials(auth);
  const given = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header(request, "authorization") ?? "");
  if (!given) return refuse(401, "unsigned: no basic auth, the user and password of POSTMARK_WEBHOOK_AUTH");
  const decoded = Buffer.from(given[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  // Both parts compared whatever the first gives: the time says nothing of which was wrong.
  const userMatches = same(colon < 0 ? decoded : decoded.slice(0, colon), user);
  const passwordMatches = same(colon < 0 ? "" : decoded.slice(colon + 1), password);
  if (!(userMatches && passwordMatches))
    return refuse(403, "wrong credentials: the basic auth is not POSTMARK_WEBHOOK_AUTH's user and password");
  const record = jsonObject(request.body) as PostmarkRecord | undefined;
  if (!record) return refuse(400, "the body is not the JSON of a Postmark webhook");
  const id = String(record.ID ?? record.MessageID);
  const base = { provider: "postmark" as const, at: isoTime(record.BouncedAt, new Date().toISOString()) };
  const complaint = record.RecordType === "SpamComplaint" || record.Type === "SpamComplaint";
  if (record.RecordType !== "Bounce" && !complaint) {
    const type =
      typeof record.RecordType === "string" && /^\w{1,32}$/.test(record.RecordType) ? record.RecordType : "unknown";
    return { status: 200, ignored: `a Postmark ${type} record: nothing to do` };
  }
  const type = String(record.Type);
  const permanent = complaint || hard.has(type) || record.Inactive === true;
  if (!permanent && noFailure.has(type)) {
    return { status: 200, ignored: `a Postmark ${type} bounce: no failure to deliver` };
  }
  const event = {
    ...base,
    kind: complaint ? ("complaint" as const) : ("bounce" as const),
    permanent,
    words: wordsOf("Postmark", type, record.Details ?? record.Description),
    ...(!complaint && type === onPostmarkList ? { alreadySuppressed: true as const } : {}),
  };
  return answer(eventsFor([record.Email], event, id), "a Postmark record naming no Email");
}
