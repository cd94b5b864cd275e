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
import { readEnv } from "../../config/env";
import { owedMailNotes } from "../../netlify/netlify-waitlist";
import { daily as dailyAt, sweep as sweepAt } from "../../netlify/sweep";
import { Pool } from "pg";
import { BlobsStore } from "../../waitlist/stores/blobs-store";
import { PostgresStore } from "../../waitlist/stores/postgres-store";
import type { FullStore } from "../../waitlist/stores/store";
import { startLocalBlobs, type LocalBlobs } from "../support/blobs";
import { suitePostgres } from "../support/postgres";
import { until } from "../support/until";
import { form, signupBody } from "../support/harness";
import { routes } from "../support/netlify-edge";
import { leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";

/*
 * The Netlify functions through their own handlers, with real web Requests,
 * against each store they keep the list in (Netlify Database as a real
 * Postgres, Netlify Blobs as @netlify/blobs' local server) and a real SMTP
 * server: what Netlify does with them is run them; everything they decide is
 * theirs.
 */

jest.setTimeout(patience(30_000));

// Netlify's database client, which a founder installs to turn Netlify Database on: its stand-in (the client's own
// "server" driver, pg's Pool), for the site on the database.
jest.mock("@netlify/database", () => jest.requireActual("../support/netlify-database-client.cjs"), { virtual: true });

const root = path.resolve(__dirname, "../..");
const site = "https://jointandem.app";
const success = "Welcome to the waitlist! Check your email for a confirmation message.\n";

let blobs: LocalBlobs;
let smtp: TestSmtpServer;
let logs: string[];
const savedEnv = { ...process.env };
beforeEach(async () => {
  smtp = await startSmtpServer();
  Object.assign(process.env, {
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
  await smtp.close();
});

const postgres = suitePostgres();

/** Where the functions keep the list, as the environment tells them: set up for each test, and read by the test. */
interface Backend {
  name: string;
  setUp(): Promise<void>;
  store(): FullStore;
  /** The environment of a function that cannot reach its store. */
  unreachable(): void;
  tearDown(): Promise<void>;
}

const pools: Pool[] = [];
const backends: Backend[] = [
  {
    name: "Netlify Database",
    async setUp() {
      process.env.NETLIFY_DB_URL = await postgres.createMigratedDatabase();
      // Every Netlify site has its Blobs store: a site on the database keeps its notes of mail owed there.
      blobs = await startLocalBlobs();
      process.env.NETLIFY_BLOBS_CONTEXT = blobs.context();
    },
    store() {
      const pool = new Pool({ connectionString: process.env.NETLIFY_DB_URL });
      pools.push(pool);
      return new PostgresStore(pool, { endPool: false });
    },
    unreachable() {
      process.env.NETLIFY_DB_URL = "postgres://postgres@127.0.0.1:1/waitlist";
    },
    async tearDown() {
      await Promise.all(pools.splice(0).map((pool) => pool.end()));
      await blobs.stop();
    },
  },
  {
    name: "Netlify Blobs",
    async setUp() {
      blobs = await startLocalBlobs();
      process.env.NETLIFY_BLOBS_CONTEXT = blobs.context();
    },
    store: () => new BlobsStore(blobs.store()),
    unreachable() {
      delete process.env.NETLIFY_BLOBS_CONTEXT;
    },
    tearDown: () => blobs.stop(),
  },
];

let backend: Backend;
/** The list the functions keep, read as the founders' commands read it. */
const store = () => backend.store();

/** Runs the tests `define` makes with each test's store set up in `on`. */
function withBackend(on: Backend, define: () => void) {
  beforeEach(async () => {
    backend = on;
    await on.setUp();
  });
  afterEach(() => on.tearDown());
  define();
}

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

describe.each(backends)("a deploy preview, on a site on $name", (on) =>
  withBackend(on, () => {
    it.each(["deploy-preview", "branch-deploy"])(
      "answers a %s's form as the site does and keeps nothing: no signup, no mail, no store opened",
      async (deployContext) => {
        // The preview must not even open the site's store (nor Netlify's fork of production's database).
        const reachable = { db: process.env.NETLIFY_DB_URL, blobs: process.env.NETLIFY_BLOBS_CONTEXT };
        process.env.NETLIFY_DB_URL &&= "postgres://postgres@127.0.0.1:1/waitlist";
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
        Object.assign(process.env, reachable.db ? { NETLIFY_DB_URL: reachable.db } : {}, {
          NETLIFY_BLOBS_CONTEXT: reachable.blobs,
        });
        expect(await store().count()).toBe(0);
      },
    );
  }),
);

describe("the sweep on Netlify Database", () =>
  withBackend(backends[0]!, () => {
    it("leaves the database asleep every five minutes until a note in the Blobs store says mail is due", async () => {
      // A database it cannot reach: a sweep that queried it would fail.
      process.env.NETLIFY_DB_URL = "postgres://postgres@127.0.0.1:1/waitlist";
      expect((await sweep()).status).toBe(204);
      expect(logs).toEqual([]);
      // Not before it is due...
      await owedMailNotes().note(new Date(Date.now() + 60_000));
      expect((await sweep()).status).toBe(204);
      // ...and once it is, the sweep goes to the database.
      await owedMailNotes().note(new Date(Date.now() - 1_000));
      await expect(sweep()).rejects.toThrow("Netlify Database cannot be reached");
    });

    it("leaves it asleep without SMTP_URL too: nothing could be sent", async () => {
      delete process.env.SMTP_URL;
      await owedMailNotes().note(new Date(Date.now() - 1_000));
      process.env.NETLIFY_DB_URL = "postgres://postgres@127.0.0.1:1/waitlist";
      expect((await sweep()).status).toBe(204);
    });

    it("notes a confirmation that failed for now, sends it when due, then leaves the database asleep", async () => {
      process.env.SMTP_URL = "smtp://127.0.0.1:1";
      expect((await signUp("later@example.com")).status).toBe(200);
      expect(await owedMailNotes(() => new Date(Date.now() + 10_000)).due()).toHaveLength(1);
      process.env.SMTP_URL = smtp.url;
      process.env.CONFIRMATION_LEASE_SECONDS = "1";
      await until(async () => {
        await sweep();
        return smtp.deliveries.length === 1;
      }, 15_000);
      expect(await owedMailNotes(() => new Date(Date.now() + 86_400_000)).due()).toEqual([]);
    });

    it.each([
      // A sweep runs on a note that mail is due; the day's pass runs anyway.
      ["a sweep", sweepAt, true],
      ["the day's pass", dailyAt, false],
    ])("leaves what %s had no time for to the next sweep, not to the next day's pass", async (_, run, noted) => {
      // 101 owed: more than one batch of 100. npm run bench:netlify found 1,700 of a backlog of 5,000 left for the
      // day's pass: a sweep that ran out of time cleared the notes it answered, and nothing said more was due.
      for (let n = 0; n <= 100; n++) {
        const email = `owed${n}@example.com`;
        await store().add({ email, emailKey: email, source: "netlify" });
      }
      if (noted) await owedMailNotes().note(new Date(Date.now() - 1_000));
      // Its clock says its 20 s are gone after its first batch.
      let reads = 0;
      const slow = () => Date.now() + (reads++ === 0 ? 0 : 21_000);
      expect((await run(slow)).status).toBe(204);
      expect(smtp.deliveries).toHaveLength(100);
      expect(await owedMailNotes().due()).toHaveLength(1);
      expect((await sweep()).status).toBe(204);
      expect(smtp.deliveries).toHaveLength(101);
      expect(await owedMailNotes(() => new Date(Date.now() + 86_400_000)).due()).toEqual([]);
    });
  }));

describe("on Netlify Database, at once", () =>
  withBackend(backends[0]!, () => {
    it("stores and mails one address once when 20 signups of it arrive together", async () => {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          signUp(n % 2 ? "Same@Example.com" : "same@example.com", {}, `198.51.100.${n}`),
        ),
      );
      expect(new Set(replies.map((reply) => `${reply.status} ${reply.body}`))).toEqual(new Set([`200 ${success}`]));
      expect(await store().count()).toBe(1);
      expect(smtp.deliveries).toHaveLength(1);
    });

    it("answers 20 simultaneous one-click leaves, each 200, and keeps none of them", async () => {
      const emails = Array.from({ length: 20 }, (_, n) => `leaver${n}@example.com`);
      for (const email of emails) await signUp(email);
      const links = emails.map(
        (email) => leaveLinks(smtp.deliveries.find((delivery) => delivery.envelope.to.includes(email))!.mail).text,
      );
      const statuses = await Promise.all(
        links.map(
          async (link) => (await leave(post(link, "List-Unsubscribe=One-Click"), netlifyContext().context)).status,
        ),
      );
      expect(statuses).toEqual(emails.map(() => 200));
      expect(await store().count()).toBe(0);
      expect(await store().departures()).toBe(20);
      expect(logs).toEqual([]);
    });

    it("answers 503 and says what to run when the database has no waitlist tables", async () => {
      process.env.NETLIFY_DB_URL = await postgres.createDatabase();
      const response = await signup(post(`${site}/`, signupBody("a@example.com")), netlifyContext().context);
      expect(response.status).toBe(503);
      expect(logs).toEqual([
        expect.stringContaining(
          "Netlify Database has no waitlist tables: Netlify applies netlify/database/migrations/ on deploy; locally, run `npx netlify database migrations apply`",
        ),
      ]);
    });
  }));

describe.each(backends)("on $name", (on) =>
  withBackend(on, () => {
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
        expect(leaveLinks(smtp.deliveries[0]!.mail).text).toMatch(
          /^https:\/\/jointandem\.app\/waitlist\/leave\?token=/,
        );
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
        const response = await signup(
          post(`${preview}/`, signupBody("preview@example.com"), { origin: preview }),
          context,
        );
        expect(response.status).toBe(200);
      });

      it("answers a browser without JavaScript with the site's page, under the result page's own policy", async () => {
        const { context } = netlifyContext();
        const response = await signup(
          post(`${site}/`, signupBody("page@example.com"), { accept: "text/html" }),
          context,
        );
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
        expect(await response.text()).toContain(
          "Welcome to the waitlist! Check your email for a confirmation message.",
        );
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
        backend.unreachable();
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
        const done = await call(
          post(link.toString(), "List-Unsubscribe=One-Click", { origin: "https://mail.example" }),
        );
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

        // Held by the dead instance for its lease, then due: on Blobs the sweep sends it; on Netlify Database, which
        // the sweep wakes only for a note the dead instance never wrote, the day's pass does.
        const pass = on.name === "Netlify Database" ? daily : sweep;
        await until(async () => {
          await pass();
          return slow.deliveries.length === 1;
        }, 10_000);
        await pass();
        expect(slow.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["killed@example.com"]]);
        expect(await store().pendingConfirmations()).toEqual([]);
        await slow.close();
      });

      it("mails the founders' digest once a day with FOUNDERS_DIGEST_TO, and nothing without it", async () => {
        const digests = () =>
          smtp.deliveries.filter((delivery) => delivery.envelope.to.includes("founder@example.com"));
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

        // The sweep every five minutes removes what is due, so that a large day is pruned across a day's sweeps.
        await sweep();
        expect((await store().all()).map((row) => row.email).sort()).toEqual([
          "confirmed@example.com",
          "earlier@example.com",
          "recent@example.com",
        ]);
        expect(await store().departures()).toBe(1);
        expect(logs).toContainEqual(
          expect.stringMatching(/waitlist-sweep: removed 1 signup\(s\) never confirmed in time/),
        );
        // The day's pass, and the next sweep, find nothing more to remove.
        await daily();
        await sweep();
        expect(await store().departures()).toBe(1);
      });
    });
  }),
);

describe("Netlify's configuration", () => {
  const toml = parse(readFileSync(path.join(root, "netlify.toml"), "utf8")) as {
    build: { environment: Record<string, string> };
    functions: { directory: string; included_files?: string[] };
    redirects?: unknown[];
  };

  it("has no function an event or a forged request could trigger: the form's POST is the signup function itself", () => {
    expect(readdirSync(path.join(root, toml.functions.directory)).sort()).toEqual([
      "waitlist-confirm.mts",
      "waitlist-daily.mts",
      "waitlist-leave.mts",
      "waitlist-signup.mts",
      "waitlist-sweep.mts",
    ]);
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
