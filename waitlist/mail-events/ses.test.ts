import { maxWebhookBytes, type WebhookRequest } from "./events";
import { readSesWebhook, type SesOutcome } from "./ses";
import {
  sesNotification,
  snsKey,
  snsMessage,
  testCertificateUrl,
  testTopicArn,
  type SnsKey,
} from "../../test/support/mail-webhooks";

const address = "ada.lovelace@example.com";
const post = (body: string): WebhookRequest => ({ method: "POST", headers: {}, body: Buffer.from(body) });
const reasons: string[] = [];

let key: SnsKey;
let otherKey: SnsKey;
beforeAll(() => {
  key = snsKey();
  otherKey = snsKey();
});
afterAll(() => {
  // No refusal or acknowledgement here named the address, in any case.
  for (const reason of reasons) expect(reason.toLowerCase()).not.toContain("ada");
});

async function read(body: string, settings: Parameters<typeof readSesWebhook>[1] = {}): Promise<SesOutcome> {
  const outcome = await readSesWebhook(post(body), { fetchCertificate: key.fetchCertificate, ...settings });
  if ("reason" in outcome) reasons.push(outcome.reason);
  if ("ignored" in outcome) reasons.push(outcome.ignored);
  return outcome;
}

const bounce = (permanent = true) => sesNotification({ kind: "bounce", address, permanent });

describe("readSesWebhook: what SES says, through SNS", () => {
  it.each(["1", "2"] as const)("takes a hard bounce signed with SignatureVersion %s", async (version) => {
    const body = snsMessage(key.privateKey, { Message: bounce(), MessageId: `bounce-${version}` }, { version });
    expect(await read(body)).toEqual({
      status: 200,
      events: [
        {
          ...{ provider: "ses", id: `bounce-${version}`, kind: "bounce", permanent: true, address },
          at: expect.any(String),
          words: "SES bounce type Permanent General",
        },
      ],
    });
  });

  it("takes a complaint, a soft bounce as not permanent, and SES's event-publishing format", async () => {
    const complaint = sesNotification({ kind: "complaint", address, permanent: true });
    expect(await read(snsMessage(key.privateKey, { Message: complaint }))).toMatchObject({
      events: [{ kind: "complaint", permanent: true, address }],
    });
    expect(await read(snsMessage(key.privateKey, { Message: bounce(false) }))).toMatchObject({
      events: [{ kind: "bounce", permanent: false, address }],
    });
    const published = bounce().replace('"notificationType"', '"eventType"');
    expect(await read(snsMessage(key.privateKey, { Message: published }))).toMatchObject({
      events: [{ kind: "bounce", permanent: true, address }],
    });
  });

  it("fetches a certificate once per URL", async () => {
    const before = key.fetched.length;
    await read(snsMessage(key.privateKey, { Message: bounce() }, { certificateUrl: `${testCertificateUrl}?x` }));
    await read(snsMessage(key.privateKey, { Message: bounce() }, { certificateUrl: `${testCertificateUrl}?x` }));
    expect(key.fetched.length - before).toBe(1);
  });

  it("acknowledges with nothing to do a delivery, an event type of no use here and SES's setup message", async () => {
    const delivery = JSON.stringify({ notificationType: "Delivery", delivery: { recipients: [address] } });
    for (const Message of [delivery, JSON.stringify({ eventType: "Open" }), "Successfully validated SNS topic"]) {
      expect(await read(snsMessage(key.privateKey, { Message }))).toEqual({ status: 200, ignored: expect.any(String) });
    }
  });

  it("hands back a subscription's confirmation URL, only one of SNS's own", async () => {
    const subscribe = (SubscribeURL: string) =>
      snsMessage(key.privateKey, {
        Type: "SubscriptionConfirmation",
        Message: "confirm",
        Token: "t0k3n",
        SubscribeURL,
      });
    const url = `https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${testTopicArn}&Token=t0k3n`;
    expect(await read(subscribe(url))).toEqual({ status: 200, confirmSubscription: new URL(url) });
    const evil = await read(subscribe("https://sns.us-east-1.amazonaws.com.evil.com/?Action=ConfirmSubscription"));
    expect(evil).toMatchObject({ status: 403 });
  });

  it("refuses a forged message: another key's signature, or a body changed after signing", async () => {
    expect(await read(snsMessage(otherKey.privateKey, { Message: bounce() }))).toMatchObject({ status: 403 });
    const changed = snsMessage(key.privateKey, { Message: bounce(false) }).replace("Transient", "Permanent");
    expect(await read(changed)).toMatchObject({ status: 403, reason: expect.stringMatching(/^forged/) });
  });

  it("refuses a message replayed after an hour, an unsigned one and another topic's", async () => {
    const old = new Date(Date.now() - 61 * 60 * 1000).toISOString();
    expect(await read(snsMessage(key.privateKey, { Message: bounce(), Timestamp: old }))).toMatchObject({
      status: 403,
      reason: expect.stringMatching(/^replayed/),
    });
    const unsigned = JSON.parse(snsMessage(key.privateKey, { Message: bounce() })) as Record<string, string>;
    delete unsigned.Signature;
    expect(await read(JSON.stringify(unsigned))).toMatchObject({ status: 401 });
    const settings = { topicArns: ["arn:aws:sns:us-east-1:123456789012:other"] };
    expect(await read(snsMessage(key.privateKey, { Message: bounce() }), settings)).toMatchObject({ status: 403 });
  });

  it.each([
    "https://sns.evil.com/SimpleNotificationService-x.pem",
    "https://sns.us-east-1.amazonaws.com.evil.com/SimpleNotificationService-x.pem",
    "http://sns.us-east-1.amazonaws.com/SimpleNotificationService-x.pem",
    "https://sns.us-east-1.amazonaws.com:8443/SimpleNotificationService-x.pem",
    "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-x.txt",
  ])("never fetches a certificate from %s", async (certificateUrl) => {
    const before = key.fetched.length;
    expect(await read(snsMessage(key.privateKey, { Message: bounce() }, { certificateUrl }))).toMatchObject({
      status: 403,
    });
    expect(key.fetched.length).toBe(before);
  });

  it.each(["constructor", "toString", "__proto__"])(
    "refuses a SignatureVersion of %s, a key every object inherits, before fetching a certificate",
    async (version) => {
      const certificateUrl = `${testCertificateUrl}?${version}`;
      const message = JSON.parse(snsMessage(key.privateKey, { Message: bounce() }, { certificateUrl })) as Record<
        string,
        string
      >;
      const before = key.fetched.length;
      expect(await read(JSON.stringify({ ...message, SignatureVersion: version }))).toEqual({
        status: 403,
        reason: "SignatureVersion is neither 1 nor 2, the versions SNS signs with",
      });
      expect(key.fetched.length).toBe(before);
    },
  );

  it.each(["OnAccountSuppressionList", "Suppressed"])(
    "takes a bounce of subtype %s as an address on SES's list already, not a new bounce",
    async (subType) => {
      const listed = JSON.parse(bounce()) as { bounce: Record<string, unknown> };
      listed.bounce.bounceSubType = subType;
      expect(await read(snsMessage(key.privateKey, { Message: JSON.stringify(listed) }))).toMatchObject({
        events: [{ kind: "bounce", permanent: true, address, alreadySuppressed: true }],
      });
      expect(await read(snsMessage(key.privateKey, { Message: bounce() }))).toMatchObject({
        events: [expect.not.objectContaining({ alreadySuppressed: true })],
      });
    },
  );

  it("changes nothing for a complaint whose feedback type is not-spam: the person said the mail was wanted", async () => {
    const notSpam = JSON.parse(sesNotification({ kind: "complaint", address, permanent: true })) as {
      complaint: Record<string, unknown>;
    };
    notSpam.complaint.complaintFeedbackType = "not-spam";
    expect(await read(snsMessage(key.privateKey, { Message: JSON.stringify(notSpam) }))).toEqual({
      status: 200,
      ignored: "an SES complaint of feedback type not-spam: the mail was wanted, nothing to do",
    });
    notSpam.complaint.complaintFeedbackType = "abuse";
    expect(await read(snsMessage(key.privateKey, { Message: JSON.stringify(notSpam) }))).toMatchObject({
      events: [{ kind: "complaint", permanent: true, address }],
    });
  });

  it("refuses a body over the limit, and anything but a POST", async () => {
    expect(await read("x".repeat(maxWebhookBytes + 1))).toMatchObject({ status: 413 });
    const get = await readSesWebhook({ method: "GET", headers: {}, body: "" }, {});
    expect(get).toMatchObject({ status: 405 });
  });

  it("throws when the certificate cannot be fetched, for the caller to answer 500 and SNS to send again", async () => {
    const fetchCertificate = () => Promise.reject(new Error("sns.us-east-1.amazonaws.com answered 503"));
    await expect(
      readSesWebhook(post(snsMessage(key.privateKey, { Message: bounce() })), { fetchCertificate }),
    ).rejects.toThrow("503");
  });
});
