import { maxWebhookBytes, type WebhookOutcome } from "./events";
import { readPostmarkWebhook } from "./postmark";
import { basicAuth, postmarkRecord } from "../../test/support/mail-webhooks";

const address = "ada.lovelace@example.com";
const auth = "postmark:s3cret-pass";
const reasons: string[] = [];
afterAll(() => {
  for (const reason of reasons) expect(reason.toLowerCase()).not.toContain("ada");
});

function read(body: string, authorization?: string, method = "POST"): WebhookOutcome {
  const headers = authorization ? { authorization } : {};
  const outcome = readPostmarkWebhook({ method, headers, body }, { auth });
  if ("reason" in outcome) reasons.push(outcome.reason);
  if ("ignored" in outcome) reasons.push(outcome.ignored);
  return outcome;
}
const bounce = (type: string, inactive = false) =>
  JSON.stringify({
    ...JSON.parse(postmarkRecord({ kind: "bounce", address, permanent: false }, type)),
    Inactive: inactive,
  });

describe("readPostmarkWebhook: Postmark's bounces and complaints, behind basic auth", () => {
  it("takes a hard bounce with its ID", () => {
    const body = postmarkRecord({ kind: "bounce", address, permanent: true });
    const id = String((JSON.parse(body) as { ID: number }).ID);
    expect(read(body, basicAuth(auth))).toEqual({
      status: 200,
      events: [
        {
          ...{ provider: "postmark", id, kind: "bounce", permanent: true, address, at: expect.any(String) },
          // Postmark's words, which may quote the address: the caller keeps them without it (mail-events/act.ts).
          words: `Postmark HardBounce smtp;550 5.1.1 <${address}>: Recipient address rejected: User unknown`,
        },
      ],
    });
  });

  it("takes ManuallyDeactivated as an address on Postmark's list already, and a HardBounce that made it inactive as new", () => {
    expect(read(bounce("ManuallyDeactivated", true), basicAuth(auth))).toMatchObject({
      events: [{ kind: "bounce", permanent: true, alreadySuppressed: true }],
    });
    expect(read(bounce("HardBounce", true), basicAuth(auth))).toMatchObject({
      events: [expect.not.objectContaining({ alreadySuppressed: true })],
    });
  });

  it.each([
    ["HardBounce", false, true],
    ["BadEmailAddress", false, true],
    ["ManuallyDeactivated", false, true],
    ["SoftBounce", false, false],
    ["DnsError", false, false],
    ["SpamNotification", false, false],
    // Postmark will not send to an address it deactivated, whatever the bounce's type.
    ["SoftBounce", true, true],
  ])("reads a %s bounce (Inactive: %s) as permanent: %s", (type, inactive, permanent) => {
    expect(read(bounce(type, inactive), basicAuth(auth))).toMatchObject({ events: [{ kind: "bounce", permanent }] });
  });

  it("takes a spam complaint as permanent", () => {
    const body = postmarkRecord({ kind: "complaint", address, permanent: true });
    expect(read(body, basicAuth(auth))).toMatchObject({ events: [{ kind: "complaint", permanent: true, address }] });
  });

  it("acknowledges with nothing to do a delay, an auto-reply, a delivery and an unknown record type", () => {
    for (const body of [
      bounce("Transient"),
      bounce("AutoResponder"),
      JSON.stringify({ RecordType: "Delivery", Recipient: address }),
      JSON.stringify({ RecordType: "SomethingNew", Email: address }),
    ]) {
      expect(read(body, basicAuth(auth))).toEqual({ status: 200, ignored: expect.any(String) });
    }
  });

  it("refuses the wrong user or password, none, a body over the limit and anything but a POST", () => {
    const body = bounce("HardBounce");
    expect(read(body, basicAuth("postmark:wrong"))).toMatchObject({ status: 403 });
    expect(read(body, basicAuth("someone:s3cret-pass"))).toMatchObject({ status: 403 });
    expect(read(body, basicAuth("postmark"))).toMatchObject({ status: 403 });
    expect(read(body)).toMatchObject({ status: 401 });
    expect(read("x".repeat(maxWebhookBytes + 1), basicAuth(auth))).toMatchObject({ status: 413 });
    expect(read(body, basicAuth(auth), "GET")).toMatchObject({ status: 405 });
  });

  it("throws, for a 500 Postmark retries, when POSTMARK_WEBHOOK_AUTH is not user:password", () => {
    expect(() => readPostmarkWebhook({ method: "POST", headers: {}, body: "{}" }, { auth: "nocolon" })).toThrow(
      /POSTMARK_WEBHOOK_AUTH/,
    );
  });
});
