import Database from "better-sqlite3";
import sweepOnNetlify from "../../netlify/functions/waitlist-sweep.mjs";
import { mailEventPaths } from "../../waitlist/routes";
import type { BlobsStore } from "../../waitlist/stores/blobs-store";
import type { Signup } from "../../waitlist/signup-life/types";
import {
  formType,
  request,
  signupBody,
  startServer,
  removeDir,
  type Adapter,
  type TestServer,
} from "../support/harness";
import {
  basicAuth,
  postmarkRecord,
  providerWebhook,
  resendEvent,
  sesNotification,
  snsKey,
  snsMessage,
  svixHeaders,
  svixSecret,
  testTopicArn,
  type Posted,
  type Provider,
  type ProviderEvent,
} from "../support/mail-webhooks";
import { patience } from "../support/patience";

/*
 * The providers' bounces and complaints over real HTTP, on npm start (SQLite) and on Netlify's function (Blobs),
 * signed as each provider signs them (test/support/mail-webhooks.ts): what each event does to the list and the mail,
 * and that anything forged, replayed, unsigned, oversized or of no use changes nothing.
 */

jest.setTimeout(patience(60_000));

const key = snsKey();
const signing = { snsKey: key.privateKey, svixSecret: svixSecret(), postmarkAuth: "postmark:Wq3v9Zk2LrT8xNp4YbF6hJd1" };
const settings = {
  sesTopicArns: [testTopicArn],
  resendSecret: signing.svixSecret,
  postmarkAuth: signing.postmarkAuth,
};
const providers = ["ses", "resend", "postmark"] as const satisfies readonly Provider[];

/** AWS as the SES route reaches it: the test's certificate, and the subscriptions it confirmed. */
const confirmedSubscriptions: string[] = [];
const aws: typeof fetch = async (input) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.pathname.endsWith(".pem")) return new Response(key.certificate);
  confirmedSubscriptions.push(url.href);
  return new Response("<ConfirmSubscriptionResponse/>");
};

const post = (server: TestServer, provider: Provider, { headers, body }: Posted) =>
  request(`${server.url}${mailEventPaths[provider]}`, { method: "POST", headers, body });

const event = (provider: Provider, what: ProviderEvent) => providerWebhook(provider, what, signing);

/** The list as the store has it, each signup's state and error, and whether it is there at all. */
const states = async (server: TestServer) =>
  Object.fromEntries(
    (await server.signups()).map((one: Signup) => [one.emailKey, [one.state, one.confirmationError]] as const),
  );

const day = () => new Date().toISOString().slice(0, 10);

describe.each<Adapter>(["start", "netlify"])("bounces and complaints through the %s adapter", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(adapter, { mailEvents: settings, fetch: aws });
  });
  afterAll(async () => {
    await server.close();
    removeDir(server.dir);
  });

  /** A signup owed its confirmation, not sent yet; or, `confirmed`, a member whose confirmation went out. */
  const seed = (email: string, confirmed = false) =>
    server.withStore(async (store) => {
      const at = new Date(Date.now() - 3_600_000);
      await store.add({ email, emailKey: email.toLowerCase(), source: "start", at });
      if (!confirmed) return;
      await store.markConfirmationSent(email.toLowerCase(), at);
      await store.confirm(email.toLowerCase(), { createdAt: at.toISOString(), at, privacyPolicy: null });
    });

  /** The day's figure the founders' rates are made of (store.mailDays). */
  const countedToday = async (figure: "bounced" | "complained") =>
    (await server.withStore((store) => store.mailDays(day())))[0]?.[figure] ?? 0;

  /** The confirmations owed and due, sent as the adapter's sweep sends them. */
  const sweep = async () => {
    if (adapter === "netlify") await sweepOnNetlify();
    else await server.confirmations!.sweep();
  };

  /** How each departure left: the store keeps it for its counts, which name none (SQLite's table, Blobs' keys). */
  const departureKinds = async (): Promise<string[]> => {
    if (adapter === "netlify") {
      return server.withStore(async (store) =>
        (await (store as BlobsStore).blobs.list({ prefix: "departures/" })).blobs.map(
          (blob) => /-([a-z-]+)-[0-9a-f]{8}$/.exec(blob.key)![1]!,
        ),
      );
    }
    const db = new Database(server.dbFile, { readonly: true });
    try {
      return (db.prepare("SELECT how FROM departures").all() as { how: string }[]).map((row) => row.how);
    } finally {
      db.close();
    }
  };

  it.each(providers)(
    "%s: a bounce for good refuses an unconfirmed signup, which the sweep then never mails",
    async (provider) => {
      const email = `owed-${provider}@example.com`;
      await seed(email);
      const bouncedBefore = await countedToday("bounced");
      // The provider writes the address its own way: it is made canonical before it is looked up.
      const reply = await post(
        server,
        provider,
        event(provider, { kind: "bounce", address: email.toUpperCase(), permanent: true }),
      );
      expect([reply.status, reply.body]).toEqual([
        200,
        expect.stringContaining("its confirmation is refused for good"),
      ]);
      const [state, error] = (await states(server))[email]!;
      expect(state).toBe("refused");
      expect(error).toMatch(/^bounced for good: /);
      expect(error).not.toMatch(/owed-/i);
      const before = (await server.outbox()).length;
      await sweep();
      expect(await server.outbox()).toHaveLength(before);
      expect(await countedToday("bounced")).toBe(bouncedBefore + 1);
    },
  );

  it("a bounce for good keeps a member, undeliverable: still listed, never mailed again", async () => {
    await seed("member@example.com", true);
    const reply = await post(
      server,
      "ses",
      event("ses", { kind: "bounce", address: "member@example.com", permanent: true }),
    );
    expect([reply.status, reply.body]).toEqual([
      200,
      expect.stringContaining("the member is kept, never mailed again"),
    ]);
    expect((await states(server))["member@example.com"]![0]).toBe("undeliverable");
  });

  it.each(providers)(
    "%s: a complaint removes the person at once, as a leave, and a new signup of the mailbox is answered but not mailed",
    async (provider) => {
      const email = `grumpy-${provider}@example.com`;
      await seed(email, true);
      const left = (await departureKinds()).length;
      const complainedBefore = await countedToday("complained");
      const reply = await post(
        server,
        provider,
        event(provider, { kind: "complaint", address: email, permanent: true }),
      );
      expect([reply.status, reply.body]).toEqual([200, expect.stringContaining("the person is removed, as a leave")]);
      expect((await states(server))[email]).toBeUndefined();
      expect((await departureKinds()).slice(left)).toEqual(["complaint"]);
      expect(await countedToday("complained")).toBe(complainedBefore + 1);

      const before = (await server.outbox()).length;
      for (const again of [email, email.replace("@", "+again@")]) {
        const signup = await request(`${server.url}/`, {
          method: "POST",
          headers: { ...formType, Accept: "text/plain" },
          body: signupBody(again),
        });
        expect([signup.status, signup.body]).toEqual([
          200,
          "Welcome to the waitlist! Check your email for a confirmation message.\n",
        ]);
      }
      expect(await server.outbox()).toHaveLength(before);
      const now = await states(server);
      for (const again of [email, email.replace("@", "+again@")]) {
        expect(now[again]).toEqual([
          "refused",
          expect.stringMatching(
            /^not sent: mail to this mailbox bounced or was marked as spam; held until \d{4}-\d\d-\d\d$/,
          ),
        ]);
      }
    },
  );

  it.each(providers)(
    "%s: a bounce holds the one address it names: a stranger's spelling of a mailbox does not silence its owner",
    async (provider) => {
      const owner = `owner-${provider}@example.com`;
      const stranger = owner.replace("@", "+stranger@");
      await seed(stranger);
      const reply = await post(
        server,
        provider,
        event(provider, { kind: "bounce", address: stranger, permanent: true }),
      );
      expect([reply.status, reply.body]).toEqual([200, expect.stringContaining("the address is not mailed until")]);
      const before = (await server.outbox()).length;
      for (const email of [owner, stranger.replace("@", "2@")]) {
        const signup = await request(`${server.url}/`, {
          method: "POST",
          headers: { ...formType, Accept: "text/plain" },
          body: signupBody(email),
        });
        expect(signup.status).toBe(200);
      }
      await sweep();
      expect(await server.outbox()).toHaveLength(before + 2);
      const now = await states(server);
      expect([now[owner], now[stranger.replace("@", "2@")]]).toEqual([
        [expect.not.stringMatching(/^refused$/), null],
        [expect.not.stringMatching(/^refused$/), null],
      ]);
    },
  );

  it.each(providers)("%s: a temporary bounce changes nothing", async (provider) => {
    await seed(`soft-${provider}@example.com`);
    const before = await server.signups();
    const reply = await post(
      server,
      provider,
      event(provider, { kind: "bounce", address: `soft-${provider}@example.com`, permanent: false }),
    );
    expect(reply.status).toBe(200);
    expect(await server.signups()).toEqual(before);
  });

  describe("what changes nothing", () => {
    const victim = "victim@example.com";
    const complaint = { kind: "complaint", address: victim, permanent: true } as const;
    const old = Date.now() - 2 * 3_600_000;
    const oversized = "x".repeat(300 * 1024);
    const unchanged = async (attempts: [Provider, Posted][], statuses: number[]) => {
      if (!(await server.withStore((store) => store.lookup(victim)))) await seed(victim, true);
      const before = await server.signups();
      const got = [];
      for (const [provider, posted] of attempts) got.push((await post(server, provider, posted)).status);
      expect(got).toEqual(statuses);
      expect(await server.signups()).toEqual(before);
    };

    it("a forged event: signed with another key, another secret, the wrong password, or changed after signing", async () => {
      const signed = event("ses", complaint);
      await unchanged(
        [
          ["ses", { ...signed, body: signed.body.replace(/victim@example\.com/g, "victim@example.org") }],
          ["resend", providerWebhook("resend", complaint, { svixSecret: svixSecret() })],
          ["postmark", providerWebhook("postmark", complaint, { postmarkAuth: "postmark:guessed" })],
        ],
        [403, 403, 403],
      );
    });

    it("a replayed event: an old signature, or the same event again (Postmark signs no time)", async () => {
      const sesOld = snsMessage(key.privateKey, {
        Message: sesNotification(complaint),
        Timestamp: new Date(old).toISOString(),
      });
      const resendBody = resendEvent(complaint);
      await unchanged(
        [
          ["ses", { headers: { "content-type": "text/plain" }, body: sesOld }],
          [
            "resend",
            {
              headers: {
                "content-type": "application/json",
                ...svixHeaders(signing.svixSecret, resendBody, { at: old }),
              },
              body: resendBody,
            },
          ],
        ],
        [403, 403],
      );
      // The same complaint twice: acted on once. The person signs up again meanwhile, and stays.
      await seed("twice@example.com", true);
      const body = postmarkRecord({ ...complaint, address: "twice@example.com" });
      const posted = {
        headers: { "content-type": "application/json", authorization: basicAuth(signing.postmarkAuth) },
        body,
      };
      expect((await post(server, "postmark", posted)).status).toBe(200);
      await seed("twice@example.com");
      const again = await post(server, "postmark", posted);
      expect([again.status, again.body]).toEqual([200, expect.stringContaining("already acted on")]);
      expect((await states(server))["twice@example.com"]).toBeDefined();
    });

    it("an unsigned event, an oversized one, and one of no use here", async () => {
      const json = { "content-type": "application/json" };
      const { Signature: _signature, ...unsigned } = JSON.parse(event("ses", complaint).body) as Record<string, string>;
      const delivered = JSON.stringify({
        type: "email.delivered",
        created_at: new Date().toISOString(),
        data: { to: [victim] },
      });
      await unchanged(
        [
          ["ses", { headers: json, body: JSON.stringify(unsigned) }],
          ["resend", { headers: json, body: resendEvent(complaint) }],
          ["postmark", { headers: json, body: postmarkRecord(complaint) }],
          ...providers.map((provider): [Provider, Posted] => [provider, { headers: json, body: oversized }]),
          ["resend", { headers: { ...json, ...svixHeaders(signing.svixSecret, delivered) }, body: delivered }],
          [
            "postmark",
            {
              headers: { ...json, authorization: basicAuth(signing.postmarkAuth) },
              body: JSON.stringify({ RecordType: "Delivery", Recipient: victim }),
            },
          ],
        ],
        [401, 401, 401, 413, 413, 413, 200, 200],
      );
    });

    it("an event for an address not on the list: 200, and its log line names nobody", async () => {
      const before = await server.signups();
      const reply = await post(
        server,
        "resend",
        event("resend", { kind: "bounce", address: "nobody@example.com", permanent: true }),
      );
      expect([reply.status, reply.body]).toEqual([
        200,
        expect.stringContaining("not on the list; the address is not mailed until"),
      ]);
      expect(await server.signups()).toEqual(before);
      const lines = server.logs.join("");
      expect(lines).toMatch(/POST \/waitlist\/mail-events\/resend 200 .*not on the list/);
      expect(lines).not.toMatch(/nobody|victim|grumpy|owed-|member@|twice@/i);
    });
  });

  it("confirms SES's subscription of the topic by the URL SNS gives", async () => {
    const subscribe = "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=t0ken";
    const body = snsMessage(key.privateKey, {
      Type: "SubscriptionConfirmation",
      Message: "You have chosen to subscribe to the topic.",
      SubscribeURL: subscribe,
      Token: "t0ken",
    });
    const reply = await post(server, "ses", { headers: { "content-type": "text/plain" }, body });
    expect([reply.status, reply.body]).toEqual([200, expect.stringMatching(/^confirmed the SNS subscription/)]);
    expect(confirmedSubscriptions).toContain(subscribe);
  });
});

describe.each<Adapter>(["start", "develop", "netlify"])("a provider's route without its setting, on %s", (adapter) => {
  it("answers 404 with what to set: SES without SES_SNS_TOPIC_ARN takes nothing", async () => {
    const server = await startServer(adapter, { mailEvents: { resendSecret: signing.svixSecret }, fetch: aws });
    try {
      const ses = await post(
        server,
        "ses",
        event("ses", { kind: "complaint", address: "a@example.com", permanent: true }),
      );
      expect([ses.status, ses.body]).toEqual([404, "ses events are not taken here: SES_SNS_TOPIC_ARN is not set\n"]);
      const postmark = await post(
        server,
        "postmark",
        event("postmark", { kind: "bounce", address: "a@example.com", permanent: true }),
      );
      expect(postmark.status).toBe(404);
      const resend = await post(
        server,
        "resend",
        event("resend", { kind: "bounce", address: "a@example.com", permanent: true }),
      );
      expect([resend.status, resend.body]).toEqual([200, expect.stringContaining("not on the list")]);
    } finally {
      await server.close();
      removeDir(server.dir);
    }
  });
});
