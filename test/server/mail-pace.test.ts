import { run } from "../../cli/run";
import { drainHeader, drainPath, drainToken } from "../../netlify/drain-start";
import {
  formType,
  removeDir,
  request,
  signupBody,
  startServer,
  type Adapter,
  type TestServer,
} from "../support/harness";
import { providerPresets, startMailProvider, type MailProvider, type ProviderProfile } from "../support/mail-provider";
import { patience } from "../support/patience";

/*
 * The site's mail against a provider as strict as a real one (test/support/mail-provider.ts): its rate, its
 * connections and its daily quota, refusing as SES refuses. On npm start (SQLite) and on Netlify's functions (Blobs),
 * over real HTTP and a real SMTP server: every signup answered at once, mailed once, within the provider's limits;
 * a throttle the site did not foresee resent soon; a quota holding every sender, refusing nobody.
 */

jest.setTimeout(patience(120_000));

let provider: MailProvider | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  // The functions' work after their replies done first (a drain, and the next it starts), while the edge still
  // takes the requests it makes: closed under it, a drain's reads of the store failed the test.
  await server?.outbox();
  await server?.close();
  if (server) removeDir(server.dir);
  await provider?.close();
  [server, provider] = [undefined, undefined];
});

/** A new connection's TLS handshake and AUTH, as a provider charges them. */
const connectMs = 150;

async function open(adapter: Adapter, profile: ProviderProfile, paceEnv: Record<string, string>) {
  provider = await startMailProvider({ profile, connectMs });
  // npm start sweeps every half second here (every 30 s by default), so that a held message's turn comes soon.
  server = await startServer(adapter, { smtpUrl: provider.url, paceEnv, sweepMs: 500 });
  return { provider, server };
}

const signUp = (at: TestServer, email: string) =>
  request(`${at.url}/`, { method: "POST", headers: { ...formType, accept: "text/plain" }, body: signupBody(email) });

/** Resolves once `done()` holds, checking every 100 ms; fails after `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms: number, what: string) {
  const end = Date.now() + patience(ms);
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const addresses = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);

describe.each<Adapter>(["start", "netlify"])("the mail at a provider's pace, through the %s adapter", (adapter) => {
  it("a burst past SES sandbox's 1 a second: each signup answered at once and mailed once, nothing refused by the provider", async () => {
    const { provider, server } = await open(
      adapter,
      { ...providerPresets.sesSandbox, connections: 1 },
      { MAIL_PROVIDER: "ses-sandbox", MAIL_RATE_PER_SECOND: "1", MAIL_CONNECTIONS: "1" },
    );
    const emails = addresses(6, "burst");
    const started = Date.now();
    const replies = await Promise.all(emails.map((email) => signUp(server, email)));
    expect(replies.map((reply) => reply.status)).toEqual(emails.map(() => 200));
    // Answered before their mail: six at 1 a second take five seconds and more.
    expect(Date.now() - started).toBeLessThan(patience(3_000));
    await until(
      async () => (await server.signups()).every((one) => one.state === "sent"),
      30_000,
      "every confirmation mailed and marked sent",
    );
    expect([...provider.counters.deliveredTo.values()]).toEqual(emails.map(() => 1));
    expect(provider.counters).toMatchObject({ throttled: 0, refusedConnections: 0, refusedForQuota: 0 });
  });

  it("a throttle the pace did not foresee (the account's rate lower than said): resent soon, refused for nobody, each mailed once", async () => {
    const { provider, server } = await open(adapter, providerPresets.sesSandbox, {
      MAIL_PROVIDER: "ses",
      MAIL_RATE_PER_SECOND: "3",
      MAIL_CONNECTIONS: "1",
    });
    const emails = addresses(4, "throttled");
    for (const email of emails) expect((await signUp(server, email)).status).toBe(200);
    await until(() => provider.counters.sent === emails.length, 60_000, "every confirmation mailed");
    expect(provider.counters.throttled).toBeGreaterThan(0);
    expect([...provider.counters.deliveredTo.values()]).toEqual(emails.map(() => 1));
    await until(
      async () => (await server.signups()).every((one) => one.state === "sent"),
      10_000,
      "every signup marked sent",
    );
    // Each throttle one attempt more, its mailbox counted once; none failed, none waiting on the retry schedule.
    const attempts = (await server.signups()).map((one) => one.confirmationAttempts);
    expect(attempts.reduce((sum, n) => sum + n - 1, 0)).toBe(provider.counters.throttled);
    expect(server.logs.join("\n")).toMatch(/the mail provider asked to slow down/);
  });

  it("a daily quota the pace did not know of: every sender held till the quota's day is over, nobody refused, said once", async () => {
    const { provider, server } = await open(
      adapter,
      { ...providerPresets.sesProduction, dailyLimit: 2 },
      { MAIL_PROVIDER: "ses", MAIL_RATE_PER_SECOND: "20" },
    );
    const emails = addresses(5, "quota");
    // One at a time, each signup's e-mail done with before the next: what follows a quota reply is what is tested.
    for (const email of emails) {
      expect((await signUp(server, email)).status).toBe(200);
      const stateOf = async () => (await server!.signups()).find((one) => one.email === email)?.state;
      await until(async () => (await stateOf()) !== "sending", 10_000, `${email}'s e-mail done with`);
    }
    await until(
      async () => (await server.signups()).filter((one) => one.state === "owed").length === 3,
      30_000,
      "the three past the quota given back owed",
    );
    expect(provider.counters.sent).toBe(2);
    // One refused by the provider for the quota, then nobody tried.
    expect(provider.counters.refusedForQuota).toBe(1);
    const signups = await server.signups();
    expect(signups.filter((one) => one.state === "refused")).toEqual([]);
    const owed = signups.filter((one) => one.state === "owed");
    // The one the provider refused for the quota counts its attempt; the two after it were never tried.
    expect(owed.map((one) => one.confirmationAttempts)).toEqual([1, 0, 0]);
    // Due again when the provider's quota window (24 hours) is over, not before.
    const dueIn = (hours: number) =>
      server.withStore(
        async (store) => (await store.dueConfirmations(new Date(Date.now() + hours * 3_600_000), 10)).length,
      );
    expect([await dueIn(23), await dueIn(25)]).toEqual([0, 3]);
    const said = server.logs.join("\n").match(/the mail provider says its daily quota is used/g) ?? [];
    expect(said).toHaveLength(1);
    if (adapter === "start") {
      // The founders read it in stats: held, 3 owed, until when.
      const stats = await run(["stats"], { WAITLIST_DB: server.dbFile, SMTP_URL: provider.url, MAIL_PROVIDER: "ses" });
      expect(stats).toMatch(/Held until \d{4}-\d\d-\d\d \d\d:\d\d UTC: Amazon SES says its daily quota is used/);
      expect(stats).toContain("Confirmations owed: 3,");
    }
  });
});

describe("two npm start processes on one store", () => {
  let second: TestServer | undefined;
  afterEach(async () => {
    await second?.close();
    second = undefined;
  });

  it("keep the provider's connections together under a burst: none refused, never more open than it allows", async () => {
    // Postmark's 10 connections made 2, so that two processes at their own 2 each would be twice too many.
    const { provider, server } = await open(
      "start",
      { connections: 2 },
      {
        MAIL_PROVIDER: "smtp",
        MAIL_RATE_PER_SECOND: "20",
        MAIL_CONNECTIONS: "2",
      },
    );
    // A second process over the same SQLite file, with its own mailer: as `npm start` run twice on one machine.
    second = await startServer("start", {
      dir: server.dir,
      smtpUrl: provider.url,
      paceEnv: { MAIL_PROVIDER: "smtp", MAIL_RATE_PER_SECOND: "20", MAIL_CONNECTIONS: "2" },
      sweepMs: 500,
    });
    const emails = addresses(24, "together");
    const replies = await Promise.all(emails.map((email, n) => signUp(n % 2 ? second! : server, email)));
    expect(replies.map((reply) => reply.status)).toEqual(emails.map(() => 200));
    await until(
      async () => (await server.signups()).every((one) => one.state === "sent"),
      60_000,
      "every confirmation mailed and marked sent",
    );
    expect([...provider.counters.deliveredTo.values()]).toEqual(emails.map(() => 1));
    expect(provider.counters).toMatchObject({ refusedConnections: 0, throttled: 0 });
    expect(provider.counters.maxConnections).toBeLessThanOrEqual(2);
  });
});

describe("a provider's limit of connections lower than said", () => {
  it("a 421 to a connection past it lowers the connections every sender opens: refused once, each mailed once", async () => {
    // The account allows one connection; the site was told two.
    const { provider, server } = await open(
      "start",
      { connections: 1 },
      {
        MAIL_PROVIDER: "smtp",
        MAIL_RATE_PER_SECOND: "10",
        MAIL_CONNECTIONS: "2",
      },
    );
    const emails = addresses(10, "lowered");
    const replies = await Promise.all(emails.map((email) => signUp(server, email)));
    expect(replies.map((reply) => reply.status)).toEqual(emails.map(() => 200));
    await until(
      async () => (await server.signups()).every((one) => one.state === "sent"),
      60_000,
      "every confirmation mailed and marked sent",
    );
    expect([...provider.counters.deliveredTo.values()]).toEqual(emails.map(() => 1));
    // The second connection refused, its shard resting: no sender asked for it again.
    expect(provider.counters.refusedConnections).toBe(1);
    expect(server.logs.join("\n")).toMatch(/the mail provider asked to slow down/);
  });
});

describe("the drain on Netlify", () => {
  it("sends a burst past the provider's rate from a drain the signups start; a drain request without the site's token is a 404", async () => {
    const { provider, server } = await open("netlify", providerPresets.resendFree, {
      MAIL_PROVIDER: "resend-free",
      MAIL_RATE_PER_SECOND: "2",
      MAIL_CONNECTIONS: "2",
    });
    // Without the site's token (forged, or none): nothing there, nothing sent.
    const forged = await request(`${server.url}${drainPath}`, {
      method: "POST",
      headers: { [drainHeader]: drainToken("not the site's secret") },
    });
    const none = await request(`${server.url}${drainPath}`, { method: "POST" });
    expect([forged.status, none.status]).toEqual([404, 404]);
    // Eight signups at once at 2 a second: those whose start is more than 2 s off are left to a drain, not waited for.
    const emails = addresses(8, "drained");
    const replies = await Promise.all(emails.map((email) => signUp(server, email)));
    expect(replies.map((reply) => reply.status)).toEqual(emails.map(() => 200));
    await until(() => provider.counters.sent === emails.length, 30_000, "every confirmation mailed");
    expect(provider.counters).toMatchObject({ throttled: 0, refusedForQuota: 0 });
    // The drain's own account, once its work after the reply is done.
    await server.outbox();
    expect(server.logs.join("")).toMatch(/waitlist-drain: confirmations: [1-9]\d* sent/);
  });
});
