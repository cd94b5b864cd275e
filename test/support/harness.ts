import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import express from "express";
import { developWaitlistMiddleware } from "../../server/develop";
import type { ServerLimits } from "../../server/http-server";
import type { Confirmations } from "../../waitlist/mail/confirmations";
import { mailConfig, mailLimits, readEnv } from "../../config/env";
import { testSite } from "./site-settings";
import { precompress } from "../../after-build/precompress";
import { blobsStore } from "../../waitlist/stores/blobs-store";
import { startLocalBlobs } from "./blobs";
import { startNetlifyEdge } from "./netlify-edge";
import { startSmtpServer, type Delivery, type TestSmtpServer } from "./smtp";
import { outboxFiles } from "./outbox";
import { sqliteSignups, withSqliteStore } from "./sqlite";
import type { FullStore } from "../../waitlist/stores/store";
import { startServer as startSiteServer, type RunningServer } from "../../server/start-server";
import { projectFolders } from "../../config/folders";
import type { Signup } from "../../waitlist/signup-life/types";
import type { MailEventSettings } from "../../waitlist/endpoints/mail-events";

/** Which deployment serves the waitlist: npm start, gatsby develop, or Netlify's functions (netlify-edge.ts). */
export type Adapter = "start" | "develop" | "netlify";

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send from another loopback address, to be another client. */
  localAddress?: string;
}

/** A plain HTTP/1.1 request over a real socket. */
export function request(url: string, { method = "GET", headers = {}, body, localAddress }: RequestOptions = {}) {
  return new Promise<Reply>((resolve, reject) => {
    const req = http.request(url, { method, headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          raw: Buffer.concat(chunks),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export const formType = { "Content-Type": "application/x-www-form-urlencoded" };

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export function signupBody(email: string, extra: Record<string, string> = {}): string {
  return form({ "form-name": "waitlist", email, "bot-field": "", ...extra });
}

/**
 * Signs `email` up over real HTTP, as the form's script posts it from `page` (its Referer, which carries an invite
 * link's code), and resolves with the confirmation `smtp` receives next: the one for `email`.
 */
export async function signUpForMail(
  server: { url: string },
  smtp: TestSmtpServer,
  email: string,
  page?: string,
): Promise<Delivery> {
  const before = smtp.deliveries.length;
  const referer: Record<string, string> = page === undefined ? {} : { Referer: `${server.url}${page}` };
  const reply = await request(`${server.url}/`, {
    method: "POST",
    headers: { ...formType, Accept: "text/plain", ...referer },
    body: signupBody(email),
  });
  if (reply.status !== 200) throw new Error(`The signup of ${email} was answered ${reply.status}: ${reply.body}`);
  return (await smtp.waitFor(before + 1))[before]!;
}

/** A small stand-in for public/, shaped like Gatsby's output. */
export function writePublicDir(dir: string): void {
  const files: Record<string, string> = {
    "index.html": "<!doctype html><title>Home</title><h1>grow. together.</h1>",
    "404.html": "<!doctype html><title>Page not found</title><h1>This page took a different route</h1>",
    "privacy-policy/index.html": `<!doctype html><title>Privacy Policy</title><h1>Privacy Policy</h1>${"<p>We keep your address safe.</p>".repeat(20)}`,
    "page-data/index/page-data.json": '{"path":"/"}',
    "page-data/app-data.json": '{"webpackCompilationHash":"abc"}',
    "app-0123456789abcdef0123.js": `console.log(${JSON.stringify("x".repeat(4000))});`,
    "styles.0123456789abcdef0123.css": "body{margin:0}",
    "static/d/0123456789abcdef/logo.svg": "<svg/>",
    "favicon.svg": "<svg/>",
    // The build's bookkeeping, which nobody may download (private-files.ts).
    "app-0123456789abcdef0123.js.map": '{"version":3,"sourcesContent":["const secret = 1;"]}',
    "webpack.stats.json": '{"assetsByChunkName":{}}',
    "chunk-map.json": '{"app":["/app-0123456789abcdef0123.js"]}',
    _headers: "/*\n  X-Frame-Options: DENY\n",
    _redirects: "/webpack.stats.json  /404.html  404!\n",
    "_gatsby/slices/_gatsby-scripts-1.html": "<script>internal</script>",
  };
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
}

/** What TestServer.rows() gives of a stored signup. */
const rowOf = (signup: Signup) => ({
  email: signup.email,
  email_key: signup.emailKey,
  source: signup.source,
  created_at: signup.createdAt,
});

export interface TestServer {
  url: string;
  dir: string;
  dbFile: string;
  outboxDir: string;
  /** The start adapter's confirmations (undefined for develop, whose wiring is Gatsby's). */
  confirmations?: Confirmations;
  logs: string[];
  /** Every stored signup, oldest first, from the adapter's store (SQLite, or Netlify Blobs). */
  rows(): Promise<ReturnType<typeof rowOf>[]>;
  /** Every stored signup as the store gives it (what `export` writes), oldest first. */
  signups(): Promise<Signup[]>;
  /** Runs `work` on a store over the adapter's storage (a founder's command, or a test putting a time back). */
  withStore<T>(work: (store: FullStore) => Promise<T>): Promise<T>;
  /**
   * The messages sent so far, once the sends under way have finished: .eml files in the outbox
   * (mail without SMTP_URL), or on Netlify, which always mails through SMTP, the test SMTP server's deliveries.
   */
  outbox(): Promise<string[]>;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1 with a real SQLite file in a temporary folder. */
export async function startServer(
  adapter: Adapter,
  {
    rateLimitPerMinute = 1_000_000,
    dir = mkdtempSync(path.join(os.tmpdir(), "waitlist-")),
    smtpUrl,
    retryDelaysMs,
    sweepMs,
    trustProxy,
    limits,
    linkSecret,
    linkRateLimitPerMinute = 1_000_000,
    clock,
    paceEnv = {},
    mailEvents,
    fetch,
  }: {
    /** The waitlist's clock (the start adapter): a test moves it past a hold of the mail pace. */
    clock?: () => Date;
    /** MAIL_PROVIDER and its overrides, for a test of the pace. */
    paceEnv?: Record<string, string>;
    rateLimitPerMinute?: number;
    dir?: string;
    smtpUrl?: string;
    retryDelaysMs?: number[];
    /** Start the confirmations' schedule, sweeping this often (the start adapter; npm start does it too). */
    sweepMs?: number;
    trustProxy?: number;
    /** The start adapter's HTTP server limits (http-server.ts); its defaults otherwise. */
    limits?: ServerLimits;
    /** WAITLIST_SECRET; without it the store makes and keeps one. */
    linkSecret?: string;
    linkRateLimitPerMinute?: number;
    /** The providers' webhook settings (SES_SNS_TOPIC_ARN, RESEND_WEBHOOK_SECRET, POSTMARK_WEBHOOK_AUTH). */
    mailEvents?: MailEventSettings;
    /** AWS's side of SNS (its certificates, a subscription's confirmation), as the waitlist reaches it. */
    fetch?: typeof globalThis.fetch;
  } = {},
): Promise<TestServer> {
  const mailEventEnv = {
    ...(mailEvents?.sesTopicArns ? { SES_SNS_TOPIC_ARN: mailEvents.sesTopicArns.join(",") } : {}),
    ...(mailEvents?.resendSecret ? { RESEND_WEBHOOK_SECRET: mailEvents.resendSecret } : {}),
    ...(mailEvents?.postmarkAuth ? { POSTMARK_WEBHOOK_AUTH: mailEvents.postmarkAuth } : {}),
  };
  if (adapter === "netlify")
    return startNetlify({
      dir,
      rateLimitPerMinute,
      smtpUrl,
      linkSecret,
      linkRateLimitPerMinute,
      mailEventEnv,
      fetch,
      paceEnv,
    });
  const dbFile = path.join(dir, "data", "waitlist.db");
  const outboxDir = path.join(dir, "data", "outbox");
  const mailEnv = { OUTBOX_DIR: outboxDir, ...(smtpUrl ? { SMTP_URL: smtpUrl } : {}) };
  const publicDir = path.join(dir, "public");
  writePublicDir(publicDir);
  await precompress(publicDir);
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  let running: RunningServer | undefined;
  let confirmations: Confirmations | undefined;
  let server: http.Server;
  if (adapter === "start") {
    running = await startSiteServer({
      host: "127.0.0.1",
      port: 0,
      publicDir,
      trustProxy: trustProxy ?? 0,
      limits,
      log,
      waitlist: {
        ...testSite,
        dbFile,
        migrations: projectFolders.migrations,
        legalFolder: projectFolders.legal,
        mail: mailConfig(readEnv(mailEnv)),
        // A pace as npm start keeps one with SMTP_URL set, fast enough for a test's bursts unless it names its own.
        mailLimits: mailLimits(
          readEnv({ MAIL_RATE_PER_SECOND: "1000", MAIL_CONNECTIONS: "4", ...mailEnv, ...paceEnv }),
        ),
        source: "start",
        rateLimitPerMinute,
        linkSecret,
        linkRateLimitPerMinute,
        retryDelaysMs,
        sweepMs,
        log,
        clock,
        mailEvents,
        fetch,
      },
    });
    ({ confirmations } = running.waitlist);
    if (sweepMs !== undefined) void confirmations.start();
    server = running.server;
  } else {
    // Gatsby's develop server is an Express app; mount the middleware the way gatsby-config does.
    const app = express();
    app.use(
      developWaitlistMiddleware(
        {
          WAITLIST_DB: dbFile,
          WAITLIST_RATE_LIMIT: String(rateLimitPerMinute),
          WAITLIST_LINK_RATE_LIMIT: String(linkRateLimitPerMinute),
          ...(linkSecret ? { WAITLIST_SECRET: linkSecret } : {}),
          ...mailEnv,
          ...mailEventEnv,
        },
        log,
      ),
    );
    app.use((_req, res) => res.status(404).send("Gatsby would answer here"));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    dbFile,
    outboxDir,
    confirmations,
    logs,
    rows: async () => (await sqliteSignups(dbFile)).map(rowOf),
    signups: () => sqliteSignups(dbFile),
    withStore: (work) => withSqliteStore(dbFile, work),
    outbox: async () => {
      await confirmations?.idle();
      return outboxFiles(outboxDir);
    },
    close: async () => {
      if (running) return running.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The waitlist as Netlify runs it: the real functions behind a stand-in for
 * Netlify's edge, over a local Netlify Blobs server, mailing through a test
 * SMTP server unless the test brings its own. The environment is the one
 * Netlify would give the functions; it is put back on close.
 */
async function startNetlify({
  dir,
  rateLimitPerMinute,
  smtpUrl,
  linkSecret,
  linkRateLimitPerMinute,
  mailEventEnv,
  fetch,
  paceEnv,
}: {
  dir: string;
  rateLimitPerMinute: number;
  smtpUrl?: string;
  linkSecret?: string;
  linkRateLimitPerMinute: number;
  mailEventEnv: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  paceEnv: Record<string, string>;
}): Promise<TestServer> {
  const publicDir = path.join(dir, "public");
  writePublicDir(publicDir);
  const blobs = await startLocalBlobs();
  const smtp = smtpUrl ? undefined : await startSmtpServer();
  const savedEnv = { ...process.env };
  Object.assign(process.env, {
    NETLIFY_BLOBS_CONTEXT: blobs.context(),
    SMTP_URL: smtpUrl ?? smtp!.url,
    WAITLIST_RATE_LIMIT: String(rateLimitPerMinute),
    WAITLIST_LINK_RATE_LIMIT: String(linkRateLimitPerMinute),
    // A pace fast enough for a test's bursts (a test of the pace sets its own).
    MAIL_RATE_PER_SECOND: "1000",
    MAIL_CONNECTIONS: "4",
    ...paceEnv,
    ...mailEventEnv,
  });
  if (linkSecret) process.env.WAITLIST_SECRET = linkSecret;
  else delete process.env.WAITLIST_SECRET;
  const logs: string[] = [];
  const spy = jest.spyOn(console, "error").mockImplementation((line: unknown) => void logs.push(`${String(line)}\n`));
  // A function is handed no fetch: AWS's hosts are answered by the test's, the rest (the Blobs server) as they are.
  const realFetch = globalThis.fetch;
  const fetchSpy = fetch
    ? jest
        .spyOn(globalThis, "fetch")
        .mockImplementation((input, init) =>
          new URL(input instanceof Request ? input.url : input).hostname.endsWith(".amazonaws.com")
            ? fetch(input, init)
            : realFetch(input, init),
        )
    : undefined;
  const edge = await startNetlifyEdge(publicDir);
  // The site's own address, as Netlify sets it: where a function starts a drain of the mail owed.
  process.env.URL = edge.url;
  const store = blobsStore(blobs.store());
  return {
    url: edge.url,
    dir,
    dbFile: "",
    outboxDir: "",
    logs,
    rows: async () => (await store.all()).map(rowOf),
    signups: () => store.all(),
    withStore: (work) => work(store),
    outbox: async () => {
      await edge.idle();
      return (smtp?.deliveries ?? []).map((delivery) => delivery.mail.messageId ?? "");
    },
    close: async () => {
      await edge.close();
      spy.mockRestore();
      fetchSpy?.mockRestore();
      process.env = savedEnv;
      await smtp?.close();
      await blobs.stop();
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh server for each test of the block: started before it with
 * `options()` (asked then, so it may use what an earlier hook set up),
 * closed and removed after. Read `server()` inside tests.
 */
export function serverForEachTest(
  adapter: Adapter,
  options: () => Parameters<typeof startServer>[1] = () => ({}),
): () => TestServer {
  let server: TestServer | undefined;
  beforeEach(async () => {
    server = await startServer(adapter, options());
  });
  afterEach(async () => {
    await server!.close();
    removeDir(server!.dir);
    server = undefined;
  });
  return () => {
    if (!server) throw new Error("serverForEachTest: read server() inside a test");
    return server;
  };
}

/**
 * The npm start server over a finished build (public/), with a throwaway
 * store, for the tests of one block: started before them, stopped after.
 * Read `url()` inside tests.
 */
export function serveBuildForSuite(publicDir: string): { url: () => string; outboxDir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "build-served-"));
  let running: RunningServer;
  beforeAll(async () => {
    running = await startSiteServer({
      host: "127.0.0.1",
      port: 0,
      publicDir,
      trustProxy: 0,
      log: () => {},
      waitlist: {
        ...testSite,
        dbFile: path.join(dir, "waitlist.db"),
        migrations: projectFolders.migrations,
        legalFolder: projectFolders.legal,
        mail: mailConfig(readEnv({ OUTBOX_DIR: dir })),
        source: "start",
        rateLimitPerMinute: 5,
      },
    });
  });
  afterAll(async () => {
    await running.close();
    removeDir(dir);
  });
  return { url: () => running.url, outboxDir: dir };
}
