import { maxWebhookBytes, type WebhookOutcome, type WebhookRequest } from "./events";
import { readResendWebhook } from "./resend";
import { resendEvent, svixHeaders, svixSecret } from "../../test/support/mail-webhooks";

const address = "ada.lovelace@example.com";
const secret = svixSecret();
const reasons: string[] = [];
afterAll(() => {
  for (const reason of reasons) expect(reason.toLowerCase()).not.toContain("ada");
});

function read(body: string, headers: Record<string, string>, settings = { secret }): WebhookOutcome {
  const request: WebhookRequest = { method: "POST", headers, body: Buffer.from(body) };
  const outcome = readResendWebhook(request, settings);
  if ("reason" in outcome) reasons.push(outcome.reason);
  if ("ignored" in outcome) reasons.push(outcome.ignored);
  return outcome;
}
const signed = (body: string, at?: number) => read(body, svixHeaders(secret, body, { at }));

describe("readResendWebhook: Resend's events, signed through Svix", () => {
  it("takes a hard bounce, a soft one as not permanent, and a complaint", () => {
    const hard = resendEvent({ kind: "bounce", address, permanent: true });
    const emailId = (JSON.parse(hard) as { data: { email_id: string } }).data.email_id;
    expect(signed(hard)).toEqual({
      status: 200,
      events: [
        {
          provider: "resend",
          id: `${emailId}:email.bounced`,
          kind: "bounce",
          permanent: true,
          address,
          at: expect.any(String),
          words: "Resend bounce Permanent General The recipient's mail server rejected it",
        },
      ],
    });
    expect(signed(resendEvent({ kind: "bounce", address, permanent: false }))).toMatchObject({
      events: [{ permanent: false }],
    });
    expect(signed(resendEvent({ kind: "complaint", address, permanent: true }))).toMatchObject({
      events: [{ kind: "complaint", permanent: true, address }],
    });
  });

  it("takes email.suppressed, and a bounce of SES's subtype OnAccountSuppressionList, as on Resend's list already", () => {
    const hard = JSON.parse(resendEvent({ kind: "bounce", address, permanent: true })) as {
      type: string;
      data: { bounce?: Record<string, unknown> };
    };
    const { bounce, ...data } = hard.data;
    const suppressed = JSON.stringify({ ...hard, type: "email.suppressed", data });
    expect(signed(suppressed)).toMatchObject({
      events: [{ kind: "bounce", permanent: true, address, alreadySuppressed: true }],
    });
    const listed = JSON.stringify({
      ...hard,
      data: { ...data, bounce: { ...bounce, subType: "OnAccountSuppressionList" } },
    });
    expect(signed(listed)).toMatchObject({ events: [{ kind: "bounce", permanent: true, alreadySuppressed: true }] });
  });

  it("takes a signature among several, one per secret while Resend rolls its secret", () => {
    const body = resendEvent({ kind: "bounce", address, permanent: true });
    const headers = svixHeaders(secret, body);
    const other = svixHeaders(svixSecret(), body, { id: headers["svix-id"] });
    headers["svix-signature"] = `${other["svix-signature"]} ${headers["svix-signature"]}`;
    expect(read(body, headers)).toMatchObject({ status: 200, events: [{ address }] });
  });

  it("acknowledges with nothing to do a delivery and an unknown event type", () => {
    for (const type of ["email.delivered", "email.something_new"]) {
      const body = JSON.stringify({ type, created_at: new Date().toISOString(), data: { to: [address] } });
      expect(signed(body)).toEqual({ status: 200, ignored: expect.any(String) });
    }
  });

  it("refuses a forged event: another secret, or a body changed after signing", () => {
    const body = resendEvent({ kind: "bounce", address, permanent: false });
    expect(read(body, svixHeaders(svixSecret(), body))).toMatchObject({ status: 403 });
    const changed = body.replace('"Transient"', '"Permanent"');
    expect(read(changed, svixHeaders(secret, body))).toMatchObject({
      status: 403,
      reason: expect.stringMatching(/^forged/),
    });
  });

  it("refuses a replay more than 5 minutes old, one from the future, and an unsigned event", () => {
    const body = resendEvent({ kind: "bounce", address, permanent: true });
    for (const at of [Date.now() - 6 * 60 * 1000, Date.now() + 6 * 60 * 1000]) {
      expect(signed(body, at)).toMatchObject({ status: 403, reason: expect.stringMatching(/^replayed/) });
    }
    expect(read(body, { "content-type": "application/json" })).toMatchObject({ status: 401 });
  });

  it("refuses a body over the limit", () => {
    const body = "x".repeat(maxWebhookBytes + 1);
    expect(signed(body)).toMatchObject({ status: 413 });
  });

  it("throws, for a 500 the provider retries, when RESEND_WEBHOOK_SECRET is not a signing secret", () => {
    const body = resendEvent({ kind: "bounce", address, permanent: true });
    expect(() => read(body, svixHeaders(secret, body), { secret: "re_123" })).toThrow(/RESEND_WEBHOOK_SECRET/);
  });
});
