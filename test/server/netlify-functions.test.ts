import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Context } from "@netlify/functions";
import { parse } from "smol-toml";
import { config as confirmConfig } from "../../netlify/functions/waitlist-confirm.mjs";
import leave, { config as leaveConfig } from "../../netlify/functions/waitlist-leave.mjs";
import signup, { config as signupConfig } from "../../netlify/functions/waitlist-signup.mjs";
import sweep, { config as sweepConfig } from "../../netlify/functions/waitlist-sweep.mjs";
import daily, { config as dailyConfig } from "../../netlify/functions/waitlist-daily.mjs";
import { config as mailEventsConfig } from "../../netlify/functions/waitlist-mail-events.mjs";
import { mailEventPaths } from "../../waitlist/routes";
import { readEnv } from "../../config/env";
import { blobsStore } from "../../waitlist/stores/blobs-store";
import { startLocalBlobs, type LocalBlobs } from "../support/blobs";
import { until } from "../support/until";
import { form, signupBody } from "../support/harness";
import { routes } from "../support/netlify-edge";
import { leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";

/*
 * The Netlify functions through their own handlers, with real web Requests,
 * against the store they keep the list in (Netlify Blobs, as @netlify/blobs'
 * local server) and a real SMTP server: what Netlify does with them is run
 * them; everything they decide is theirs.
 */

jest.setTimeout(patience(30_000));

const root = path.resolve(__dirname, "../..");
const site = "https://jointandem.app";
const success = "Welcome to the waitlist! Check your email for a confirmation message.\n";

let blobs: LocalBlobs;
let smtp: TestSmtpServer;
let logs: string[];
const savedEnv = { ...process.env };
beforeEach(async () => {
  [smtp, blobs] = await Promise.all([startSmtpServer(), startLocalBlobs()]);
  Object.assign(process.env, {
    NETLIFY_BLOBS_CONTEXT: blobs.context(),
    SMTP_URL: smtp.url,
    URL: "https://jointandem.netlify.app",
    WAITLIST_RATE_LIMIT: "1000",
  });
  logs = [];
  jest.spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(String(line)));
});
afterEach(async () => {
  jest.restoreAllMocks();
  process.env = { ...savedEnv };
  await Promise.all([smtp.close(), blobs.stop()]);
});

/** The list the functions keep, read as the founders' commands read it. */
const store = () => blobsStore(blobs.store());

/** A function's context, as Netlify gives it: the client's address, and waitUntil, whose promises `settle()` awaits. */
function netlifyContext(ip = "203.0.113.7") {
  const pending: Promise<unknown>[] = [];
  return {
    context: { ip, waitUntil: (promise: Promise<unknown>) => void pending.push(promise) } as unknown as Context,
    settle: () => Promise.allSettled(pending),
  };
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  new Request(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/plain", ...headers },
    body,
  });

async function signUp(email: string, headers: Record<string, string> = {}, ip?: string) {
  const { context, settle } = netlifyContext(ip);
  const response = await signup(post(`${site}/`, signupBody(email), headers), context);
  await settle();
  return { status: response.status, body: await response.text(), headers: response.headers };
}

describe("a deploy preview", () => {
  it.each(["deploy-preview", "branch-deploy"])(
    "answers a %s's form as the site does and keeps nothing: no signup, no mail, no store opened",
    async (deployContext) => {
      // The preview must not even open the site's store.
      const reachable = process.env.NETLIFY_BLOBS_CONTEXT;
      delete process.env.NETLIFY_BLOBS_CONTEXT;
      const { context, settle } = netlifyContext();
      const preview = { ...context, deploy: { context: deployContext, id: "6543210fedcba9876543210f" } } as Context;
      const response = await signup(post(`${site}/`, signupBody("reviewer@example.com")), preview);
      await settle();
      expect([response.status, await response.text(), logs]).toEqual([200, success, []]);
      const refused = await signup(post(`${site}/`, signupBody("not-an-address")), preview);
      expect(refused.status).toBe(422);
      const link = await leave(
        new Request(`${site}/waitlist/leave?token=x`, { headers: { accept: "text/html" } }),
        preview,
      );
      expect([link.status, await link.text()]).toEqual([404, expect.stringContaining("A preview keeps no signups")]);
      expect(smtp.deliveries).toEqual([]);
      process.env.NETLIFY_BLOBS_CONTEXT = reachable;
      expect(await store().count()).toBe(0);
    },
  );
});

describe("netlify/functions/waitlist-signup: POST / on Netlify", () => {
  it("answers the spec's success, stores the address and sends one confirmation after the reply", async () => {
    const reply = await signUp("Ada@Example.com", { referer: `${site}/?utm_source=tiktok&ref=maya` });
    expect(reply).toMatchObject({ status: 200, body: success });
    expect(reply.headers.get("content-security-policy")).toBeNull(); // a line of text, not a page
    expect(await store().all()).toEqual([
      expect.objectContaining({
        email: "Ada@example.com",
        emailKey: "ada@example.com",
        source: "netlify",
        utmSource: "tiktok",
        ref: "maya",
        landingPath: "/",
        confirmationSentAt: expect.any(String),
      }),
    ]);
    expect(smtp.deliveries).toHaveLength(1);
    // The local part as typed; the domain as mail servers write it.
    expect(smtp.deliveries[0]!.envelope.to).toEqual(["Ada@example.com"]);
    expect(leaveLinks(smtp.deliveries[0]!.mail).text).toMatch(/^https:\/\/jointandem\.app\/waitlist\/leave\?token=/);
  });

  it("answers a repeat exactly like a new address, and sends no second confirmation", async () => {
    const first = await signUp("ada@example.com");
    const again = await signUp("ADA@example.com ");
    expect(again).toEqual(first);
    expect(await store().count()).toBe(1);
    expect(smtp.deliveries).toHaveLength(1);
  });

  it("answers a filled honeypot like a success, and keeps and mails nothing", async () => {
    const { context } = netlifyContext();
    const response = await signup(post(`${site}/`, signupBody("bot@example.com", { "bot-field": "x" })), context);
    expect([response.status, await response.text()]).toEqual([200, success]);
    expect(await store().count()).toBe(0);
    expect(smtp.deliveries).toHaveLength(0);
  });

  it.each([
    ["no @", signupBody("ada.example.com"), {}, 422, "The e-mail address needs a name, an @ and a domain.\n"],
    [
      "another form",
      form({ "form-name": "contact", email: "a@example.com" }),
      {},
      404,
      "There is no such form on this site.\n",
    ],
    [
      "a JSON body",
      '{"email":"a@example.com"}',
      { "content-type": "application/json" },
      415,
      "Send the form as application/x-www-form-urlencoded.\n",
    ],
    [
      "another site's page",
      signupBody("a@example.com"),
      { origin: "https://evil.test" },
      403,
      "Signups are accepted from this site only.\n",
    ],
    [
      "a cross-site fetch",
      signupBody("a@example.com"),
      { "sec-fetch-site": "cross-site" },
      403,
      "Signups are accepted from this site only.\n",
    ],
    ["5 KiB", signupBody(`${"a".repeat(5000)}@example.com`), {}, 413, "The form is larger than 4096 bytes.\n"],
  ])(
    "refuses %s with the same line as npm start, and keeps and mails nothing",
    async (_name, body, headers, status, line) => {
      const { context } = netlifyContext();
      const response = await signup(post(`${site}/`, body, headers), context);
      expect([response.status, await response.text()]).toEqual([status, line]);
      expect(await store().count()).toBe(0);
      expect(smtp.deliveries).toHaveLength(0);
    },
  );

  it("takes a post from this site's own origins: SITE_URL, Netlify's URL and the address it came in on (a deploy preview)", async () => {
    for (const origin of [site, "https://jointandem.netlify.app"]) {
      expect((await signUp(`${new URL(origin).hostname}@example.com`, { origin })).status).toBe(200);
    }
    const preview = "https://deploy-preview-7--jointandem.netlify.app";
    const { context } = netlifyContext();
    const response = await signup(post(`${preview}/`, signupBody("preview@example.com"), { origin: preview }), context);
    expect(response.status).toBe(200);
  });

  it("answers a browser without JavaScript with the site's page, under the result page's own policy", async () => {
    const { context } = netlifyContext();
    const response = await signup(post(`${site}/`, signupBody("page@example.com"), { accept: "text/html" }), context);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    expect(await response.text()).toContain("Welcome to the waitlist! Check your email for a confirmation message.");
  });

  it("counts signups per client IP in the instance: the sixth in a minute is refused, another address is not", async () => {
    process.env.WAITLIST_RATE_LIMIT = "5";
    const statuses = [];
    for (let n = 0; n < 6; n++) statuses.push((await signUp(`burst${n}@example.com`, {}, "198.51.100.1")).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await signUp("other@example.com", {}, "198.51.100.2")).status).toBe(200);
  });

  it("declares Netlify's own rate limits per IP, the defaults of WAITLIST_RATE_LIMIT and WAITLIST_LINK_RATE_LIMIT", () => {
    expect(signupConfig.rateLimit).toEqual({
      windowLimit: readEnv({}).WAITLIST_RATE_LIMIT,
      windowSize: 60,
      aggregateBy: ["ip", "domain"],
    });
    expect(leaveConfig.rateLimit).toMatchObject({
      windowLimit: readEnv({}).WAITLIST_LINK_RATE_LIMIT,
      windowSize: 60,
    });
    expect(confirmConfig.rateLimit).toMatchObject({
      windowLimit: readEnv({}).WAITLIST_LINK_RATE_LIMIT,
      windowSize: 60,
    });
    expect(confirmConfig.path).toEqual(["/waitlist/confirm", "/waitlist/confirm/"]);
  });

  it("stores the signup without SMTP_URL and says so; the sweep sends it once the variable is set", async () => {
    delete process.env.SMTP_URL;
    expect((await signUp("early@example.com")).status).toBe(200);
    expect(await store().pendingConfirmations()).toEqual([expect.objectContaining({ email: "early@example.com" })]);
    expect(logs.join("\n")).toContain("SMTP_URL is not set in Netlify's environment variables");
    expect(logs.join("\n")).not.toContain("early@example.com");

    process.env.SMTP_URL = smtp.url;
    process.env.CONFIRMATION_LEASE_SECONDS = "1";
    // Its first retry is due 5 s after the failure; the sweep takes what is due then.
    await until(async () => {
      await sweep();
      return smtp.deliveries.length === 1;
    }, 15_000);
    expect(await store().pendingConfirmations()).toEqual([]);
  });

  it("answers 503 in one line when it cannot reach its store, and logs why", async () => {
    delete process.env.NETLIFY_BLOBS_CONTEXT;
    const { context } = netlifyContext();
    const response = await signup(post(`${site}/`, signupBody("a@example.com")), context);
    expect([response.status, await response.text()]).toEqual([
      503,
      "The waitlist is not available just now; please try again in a few minutes.\n",
    ]);
    expect(logs).toEqual([
      expect.stringMatching(
        /^waitlist-signup: the waitlist's store cannot be opened \(.+\)\. Nothing was stored or removed\.$/,
      ),
    ]);
  });
});

describe("netlify/functions/waitlist-leave", () => {
  async function leaveLink(email: string) {
    await signUp(email);
    const delivery = smtp.deliveries.find((candidate) => candidate.envelope.to.includes(email))!;
    return new URL(leaveLinks(delivery.mail).text);
  }
  const call = async (request: Request) => {
    const response = await leave(request, netlifyContext().context);
    return { status: response.status, body: await response.text(), headers: response.headers };
  };

  it("shows the page for the link from the e-mail and changes nothing; its button removes the address", async () => {
    const link = await leaveLink("ada@example.com");
    const page = await call(new Request(link, { headers: { accept: "text/html" } }));
    expect(page.status).toBe(200);
    expect(page.body).toContain("Remove a***@example.com from the waitlist?");
    expect(page.headers.get("referrer-policy")).toBe("strict-origin");
    expect(page.headers.get("x-robots-tag")).toBe("noindex");
    expect(await store().count()).toBe(1);

    const token = link.searchParams.get("token")!;
    const done = await call(post(`${site}/waitlist/leave`, form({ token }), { accept: "text/html", origin: site }));
    expect(done.status).toBe(200);
    expect(done.body).toContain("You&#39;re off the list.");
    expect(await store().count()).toBe(0);
    expect(await store().departures()).toBe(1);
  });

  it("takes a mail provider's one-click POST to the link (RFC 8058) with one line", async () => {
    const link = await leaveLink("grace@example.com");
    const done = await call(post(link.toString(), "List-Unsubscribe=One-Click", { origin: "https://mail.example" }));
    expect([done.status, done.body]).toEqual([200, "You're off the list. We won't e-mail you again.\n"]);
    expect(await store().count()).toBe(0);
  });

  it("refuses a tampered token and changes nothing", async () => {
    const link = await leaveLink("ada@example.com");
    link.searchParams.set("token", `${link.searchParams.get("token")!.slice(0, -2)}xx`);
    const refused = await call(post(link.toString(), "List-Unsubscribe=One-Click"));
    expect(refused.status).toBe(400);
    expect(await store().count()).toBe(1);
  });
});

describe("netlify/functions/waitlist-sweep", () => {
  it("runs every five minutes, and the day's pass once a day", () => {
    expect(sweepConfig).toEqual({ schedule: "*/5 * * * *" });
    expect(dailyConfig).toEqual({ schedule: "@daily" });
  });

  it("sends the confirmation of a function killed mid-send, once, when its hold has run out", async () => {
    // A mail server that holds the first transaction: the function is mid-send when it is killed.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let transactions = 0;
    const slow = await startSmtpServer(0, { beforeData: () => (++transactions === 1 ? held : Promise.resolve()) });
    process.env.SMTP_URL = slow.url;
    process.env.CONFIRMATION_LEASE_SECONDS = "1";
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(__dirname, "../support/netlify-invoke.ts"),
        "waitlist-signup",
        "POST",
        `${site}/`,
        signupBody("killed@example.com"),
      ],
      { cwd: root, env: process.env },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await until(() => output.startsWith("200") && transactions === 1, 20_000);
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    release();
    expect(output).not.toContain("done");
    expect(await store().pendingConfirmations()).toHaveLength(1);

    // Held by the dead instance for its lease, then due: the sweep sends it.
    await until(async () => {
      await sweep();
      return slow.deliveries.length === 1;
    }, 10_000);
    await sweep();
    expect(slow.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["killed@example.com"]]);
    expect(await store().pendingConfirmations()).toEqual([]);
    await slow.close();
  });

  it("mails the founders' digest once a day with FOUNDERS_DIGEST_TO, and nothing without it", async () => {
    const digests = () => smtp.deliveries.filter((delivery) => delivery.envelope.to.includes("founder@example.com"));
    await daily();
    expect(digests()).toEqual([]);
    process.env.FOUNDERS_DIGEST_TO = "founder@example.com";
    await daily();
    // The day's function again (a retry, another instance): once.
    await daily();
    expect(digests()).toHaveLength(1);
    expect(digests()[0]!.mail.subject).toMatch(/^Tandem waitlist, \d{4}-\d\d-\d\d: 0 signups, 0 confirmed$/);
  });

  it("removes the signups never confirmed within 30 days, and only those, every five minutes, and says how many", async () => {
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * 86_400_000);
    const seeded = store();
    const add = async (email: string, at: Date) => {
      await seeded.add({ email, emailKey: email, source: "netlify", at });
      await seeded.markConfirmationSent(email, at);
    };
    await add("expired@example.com", ago(31));
    await add("confirmed@example.com", ago(31));
    await seeded.confirm("confirmed@example.com", {
      createdAt: ago(31).toISOString(),
      at: ago(30),
      privacyPolicy: null,
    });
    await add("recent@example.com", ago(29));
    // Imported from before the confirm step, never asked: never removed.
    await seeded.add({
      email: "earlier@example.com",
      emailKey: "earlier@example.com",
      source: "netlify",
      at: ago(100),
      confirmationSentAt: ago(100),
      earlier: true,
    });
    // Filed by the sweeps of the month since, as each signup's first sweep files it (its asked/ note with it).
    await seeded.fold();

    // The sweep every five minutes removes what is due, so that a large day is pruned across a day's sweeps.
    await sweep();
    expect((await store().all()).map((row) => row.email).sort()).toEqual([
      "confirmed@example.com",
      "earlier@example.com",
      "recent@example.com",
    ]);
    expect(await store().departures()).toBe(1);
    expect(logs).toContainEqual(expect.stringMatching(/waitlist-sweep: removed 1 signup\(s\) never confirmed in time/));
    // The day's pass, and the next sweep, find nothing more to remove.
    await daily();
    await sweep();
    expect(await store().departures()).toBe(1);
  });
});

describe("Netlify's configuration", () => {
  const toml = parse(readFileSync(path.join(root, "netlify.toml"), "utf8")) as {
    build: { environment: Record<string, string> };
    functions: { directory: string; included_files?: string[] };
    redirects?: unknown[];
  };

  it("has no function an event or a forged request could trigger: the form's POST is the signup function itself", () => {
    // The drain answers only the site's own functions' token (its tests below): a forged request is a 404.
    expect(readdirSync(path.join(root, toml.functions.directory)).sort()).toEqual([
      "waitlist-confirm.mts",
      "waitlist-daily.mts",
      "waitlist-drain.mts",
      "waitlist-leave.mts",
      "waitlist-mail-events.mts",
      "waitlist-signup.mts",
      "waitlist-sweep.mts",
    ]);
    // The providers' webhooks: a POST to their three paths only, each checked for its provider's signature
    // (test/server/mail-events.test.ts).
    expect(mailEventsConfig.path).toEqual(Object.values(mailEventPaths));
    for (const pathname of Object.values(mailEventPaths)) {
      expect([routes(mailEventsConfig, "POST", pathname), routes(mailEventsConfig, "GET", pathname)]).toEqual([
        true,
        false,
      ]);
    }
    expect(routes(signupConfig, "POST", "/")).toBe(true);
    expect(routes(signupConfig, "GET", "/")).toBe(false);
    for (const pathname of ["/waitlist/leave", "/waitlist/leave/"]) {
      for (const method of ["GET", "HEAD", "POST"]) expect(routes(leaveConfig, method, pathname)).toBe(true);
    }
    expect(toml.redirects ?? []).toEqual([]);
  });

  it("gives the functions the policies, whose version each signup's consent keeps", () => {
    expect(toml.functions.included_files).toEqual(["content/legal/**"]);
  });

  it("builds and runs the functions on a supported Node LTS", () => {
    expect(Number(toml.build.environment.NODE_VERSION)).toBeGreaterThanOrEqual(22);
  });
});
