import { patience } from "../support/patience";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import nodemailer from "nodemailer";
import { run } from "../../cli/run";
import { classifyMailFailure } from "../../waitlist/mail/replies";
import { readPostmarkWebhook } from "../../waitlist/mail-events/postmark";
import { readResendWebhook } from "../../waitlist/mail-events/resend";
import { readSesWebhook, type SesOutcome } from "../../waitlist/mail-events/ses";
import type { WebhookOutcome, WebhookRequest } from "../../waitlist/mail-events/events";
import { formType, removeDir, request, signupBody, startServer, type TestServer } from "../support/harness";
import { chosenByShare, providerPresets, startMailProvider, type MailProvider } from "../support/mail-provider";
import { snsKey, svixSecret, testTopicArn, type Provider } from "../support/mail-webhooks";
import { until } from "../support/until";

/** One message through its own connection, as the Netlify bench sends: the error, or undefined when taken. */
async function send(provider: MailProvider, to = "ada@example.com"): Promise<unknown> {
  const transport = nodemailer.createTransport(`${provider.url}?pool=false`);
  try {
    await transport.sendMail({ from: "hello@jointandem.app", to, subject: "Confirm", text: "a link" });
    return undefined;
  } catch (error) {
    return error;
  } finally {
    transport.close();
  }
}

let provider: MailProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe("the mail provider stand-in refuses as a real provider refuses", () => {
  it("answers the 11th connection at once 421 and closes it, while ten are open (SES in production)", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    provider = await startMailProvider({
      profile: providerPresets.sesProduction,
      latencyMs: 1_000,
      wait: () => (held++, gate),
    });
    const first = Array.from({ length: 10 }, (_, i) => send(provider!, `p${i}@example.com`));
    await until(() => held === 10, 5_000, "ten messages held by the provider");
    const eleventh = await send(provider);
    expect(eleventh).toMatchObject({ responseCode: 421, command: "CONN" });
    expect(classifyMailFailure(eleventh)).toBe("throttle");
    release();
    expect(await Promise.all(first)).toEqual(Array(10).fill(undefined));
    expect(provider.counters).toMatchObject({ sent: 10, refusedConnections: 1 });
  });

  it("answers a message over the rate 454 after DATA and drops it, as SES does, and takes one a second later", async () => {
    let now = Date.UTC(2026, 10, 23, 12);
    provider = await startMailProvider({ profile: providerPresets.sesSandbox, clock: () => now });
    expect(await send(provider)).toBeUndefined();
    const throttled = await send(provider);
    expect(throttled).toMatchObject({ responseCode: 454, command: "DATA" });
    expect(classifyMailFailure(throttled)).toBe("throttle");
    now += 1_000;
    expect(await send(provider)).toBeUndefined();
    expect(provider.deliveries).toHaveLength(2);
    expect(provider.counters).toMatchObject({ sent: 2, throttled: 1, dropped: 1 });
  });

  it("refuses past the daily quota until the next UTC day", async () => {
    let now = Date.UTC(2026, 10, 23, 23, 59);
    provider = await startMailProvider({ profile: { ...providerPresets.sesSandbox, dailyLimit: 2 }, clock: () => now });
    for (const second of [0, 1]) {
      now += second * 1_000;
      expect(await send(provider)).toBeUndefined();
    }
    now += 1_000;
    const refused = await send(provider);
    expect(refused).toMatchObject({
      responseCode: 454,
      response: "454 Throttling failure: Daily message quota exceeded.",
    });
    expect(classifyMailFailure(refused)).toBe("quota");
    now = Date.UTC(2026, 10, 24);
    expect(await send(provider)).toBeUndefined();
    expect(provider.counters).toMatchObject({ sent: 3, refusedForQuota: 1, dropped: 1 });
  });

  it("holds a message over Microsoft 365's 30 a minute until the minute allows, refusing none", async () => {
    let now = Date.UTC(2026, 10, 23, 12);
    const waited: number[] = [];
    provider = await startMailProvider({
      profile: { ...providerPresets.microsoft365, ratePerMinute: 2 },
      clock: () => now,
      wait: async (ms) => void (waited.push(ms), (now += ms)),
    });
    for (let i = 0; i < 3; i++) expect(await send(provider)).toBeUndefined();
    expect(waited).toEqual([60_000]);
    expect(provider.counters).toMatchObject({ sent: 3, throttled: 0 });
  });

  it("answers as a relay that wants authentication, or loses a taken message's reply, at the test's word", async () => {
    provider = await startMailProvider();
    provider.setReplyMode("relayDenied");
    const denied = await send(provider);
    expect(denied).toMatchObject({ responseCode: 550, command: "RCPT TO", response: "550 5.7.1 Relaying denied" });
    expect(classifyMailFailure(denied)).toBe("sending");
    provider.setReplyMode("dropAfterData");
    // Taken and counted, its reply never said: no reply code for the sender to read.
    const lost = await send(provider);
    expect(lost).toMatchObject({ code: "ECONNECTION", command: "CONN" });
    expect((lost as { responseCode?: number }).responseCode).toBeUndefined();
    expect(provider.counters.sent).toBe(1);
    provider.setReplyMode("normal");
    expect(await send(provider)).toBeUndefined();
    expect(provider.deliveries).toHaveLength(2);
  });

  it("chooses who bounces by a hash of the address: the same every run, about the share asked", () => {
    const addresses = Array.from({ length: 2_000 }, (_, i) => `person${i}@example.com`);
    const chosen = addresses.filter((address) => chosenByShare(address, 0.1, "bounce"));
    expect(chosen.length / addresses.length).toBeGreaterThan(0.08);
    expect(chosen.length / addresses.length).toBeLessThan(0.12);
    expect(addresses.filter((address) => chosenByShare(address, 0.1, "bounce"))).toEqual(chosen);
  });
});

describe("the stand-in's bounces and complaints, posted as each provider signs them", () => {
  const key = snsKey();
  const signing = { snsKey: key.privateKey, svixSecret: svixSecret(), postmarkAuth: "postmark:s3cret" };
  const readers: Record<Provider, (request: WebhookRequest) => Promise<SesOutcome> | WebhookOutcome> = {
    ses: (request) => readSesWebhook(request, { fetchCertificate: key.fetchCertificate, topicArns: [testTopicArn] }),
    resend: (request) => readResendWebhook(request, { secret: signing.svixSecret }),
    postmark: (request) => readPostmarkWebhook(request, { auth: signing.postmarkAuth }),
  };

  it.each(["ses", "resend", "postmark"] as const)("%s: verified and read by mail-events", async (name) => {
    const outcomes: SesOutcome[] = [];
    const webhook = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const body = Buffer.concat(chunks);
        const headers = request.headers as WebhookRequest["headers"];
        const outcome = await readers[name]({ method: request.method ?? "", headers, body });
        outcomes.push(outcome);
        response.writeHead(outcome.status).end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/`;
    try {
      provider = await startMailProvider({
        bounces: (address) => address.startsWith("gone@"),
        complains: (address) => address.startsWith("grumpy@"),
        events: { provider: name, url, delayMs: 10, signing },
      });
      for (const to of ["gone@example.com", "grumpy@example.com", "fine@example.com"]) {
        expect(await send(provider, to)).toBeUndefined();
      }
      await provider.settled();
      const events = outcomes.flatMap((outcome) => ("events" in outcome ? outcome.events : []));
      expect(events.map(({ provider: by, kind, permanent, address }) => [by, kind, permanent, address])).toEqual(
        expect.arrayContaining([
          [name, "bounce", true, "gone@example.com"],
          [name, "complaint", true, "grumpy@example.com"],
        ]),
      );
      expect(events).toHaveLength(2);
      expect(provider.counters).toMatchObject({ sent: 3, bounced: 1, complained: 1, eventsFailed: 0 });
    } finally {
      await new Promise((resolve) => webhook.close(resolve));
    }
  });
});

describe("a provider that refuses the sending, or loses its reply, on npm start", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    if (server) removeDir(server.dir);
    server = undefined;
  });

  it(
    "a relay denied for an hour refuses no signup for good: each stays owed, every sender held, each mailed once put right",
    async () => {
      provider = await startMailProvider({ replyMode: "relayDenied" });
      server = await startServer("start", { smtpUrl: provider.url, sweepMs: 500 });
      const at = server;
      const emails = ["relay0@example.com", "relay1@example.com", "relay2@example.com"];
      for (const email of emails) {
        const reply = await request(`${at.url}/`, {
          method: "POST",
          headers: { ...formType, accept: "text/plain" },
          body: signupBody(email),
        });
        expect(reply.status).toBe(200);
      }
      // The relay's 550 5.7.1 to RCPT TO is about the sending: the first holds every sender and is given back owed; the
      // others wait behind the hold. Before, every one of them was refused for good.
      await until(
        async () => (await at.signups()).every((one) => one.state === "owed"),
        10_000,
        "every signup given back owed",
      );
      expect((await at.signups()).filter((one) => one.state === "refused")).toEqual([]);
      expect(at.logs.filter((line) => line.includes("the mail provider is not taking mail"))).toHaveLength(1);
      expect(provider.counters.sent).toBe(0);

      // The relay put right, the founder sends what is owed through the hold, and each goes once: resend-pending waits
      // for the connection the running site's lease holds, 15 s past its last start at most (pace-leases.ts).
      provider.setReplyMode("normal");
      const env = { WAITLIST_DB: at.dbFile, SMTP_URL: provider.url, OUTBOX_DIR: at.outboxDir };
      await expect(run(["resend-pending"], env)).resolves.toMatch(/; 0 still pending\.$/);
      await until(async () => (await at.signups()).every((one) => one.state === "sent"), 10_000, "every signup sent");
      expect(emails.map((email) => provider!.counters.deliveredTo.get(email))).toEqual([1, 1, 1]);
    },
    patience(30_000),
  );

  it("a connection lost after the provider took a confirmation: sent once more with the same Message-ID, then marked sent", async () => {
    let drops = 0;
    // The provider takes the first message and drops the connection before its reply; the next it answers.
    provider = await startMailProvider({ smtp: { dropAfterData: () => drops++ === 0 } });
    server = await startServer("start", { smtpUrl: provider.url, sweepMs: 500, retryDelaysMs: [300] });
    const at = server;
    const reply = await request(`${at.url}/`, {
      method: "POST",
      headers: { ...formType, accept: "text/plain" },
      body: signupBody("lost@example.com"),
    });
    expect(reply.status).toBe(200);
    await until(async () => (await at.signups())[0]?.state === "sent", 10_000, "the signup marked sent");
    // Its outcome unknown, a confirmation may go twice: the same message, which threads with the first.
    const ids = provider.deliveries.map((delivery) => delivery.mail.messageId);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    // One message's fate, not the provider down: no sender was held.
    expect(at.logs.join("\n")).not.toContain("the mail provider is not taking mail");
  });
});
