import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Context } from "@netlify/functions";
import type { ParsedMail } from "mailparser";
import confirm from "../../netlify/functions/waitlist-confirm.mjs";
import leave from "../../netlify/functions/waitlist-leave.mjs";
import signup from "../../netlify/functions/waitlist-signup.mjs";
import { createApp } from "../../server/app";
import { blobsStore } from "../../waitlist/stores/blobs-store";
import { createMailer } from "../../waitlist/mail/mailer";
import { testPolicy, testSite } from "../support/site-settings";
import { SqliteStore } from "../../waitlist/stores/sqlite-store";
import type { FullStore } from "../../waitlist/stores/store";
import { createWaitlist } from "../../waitlist/create-waitlist";
import { startLocalBlobs, type LocalBlobs } from "../support/blobs";
import { form, formType, removeDir, request, signupBody, writePublicDir } from "../support/harness";
import { confirmLinks, leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";

/*
 * No request reads the whole list: a signup, a repeat, its confirmation
 * e-mail, the confirm link and a leave cost the same whatever the list's size,
 * and touch one address's keys only. Whole-list reads belong to the founders' commands.
 */

jest.setTimeout(patience(60_000));

/** The token of the confirm link in a confirmation e-mail's text. */
const confirmTokenOf = (mail: ParsedMail) => new URL(confirmLinks(mail).text).searchParams.get("token")!;

const site = "https://jointandem.app";
/**
 * The methods a request may call: WaitlistStore's (store.ts), and of the mail's bookkeeping the one a confirmation
 * asks first, by key: whether its mailbox is held after a bounce or a complaint (suppressions.ts). Everything else
 * reads the list or the backlog.
 */
const keyed: readonly (keyof FullStore)[] = [
  "suppressedUntil",
  "add",
  "lookup",
  "confirm",
  "askToConfirm",
  "claimConfirmation",
  "countMailboxMail",
  "markConfirmationSent",
  "releaseConfirmation",
  "failConfirmation",
  "remove",
  "secret",
  "close",
];

describe("on Netlify (Blobs)", () => {
  let blobs: LocalBlobs;
  let smtp: TestSmtpServer;
  const savedEnv = { ...process.env };
  beforeEach(async () => {
    [blobs, smtp] = await Promise.all([startLocalBlobs(), startSmtpServer()]);
    Object.assign(process.env, {
      NETLIFY_BLOBS_CONTEXT: blobs.context(),
      SMTP_URL: smtp.url,
      WAITLIST_RATE_LIMIT: "1000",
      // A provider faster than the test: each signup's mail takes a start at once, from the shard it draws.
      MAIL_RATE_PER_SECOND: "1000",
    });
  });
  afterEach(async () => {
    process.env = { ...savedEnv };
    await Promise.all([blobs.stop(), smtp.close()]);
  });

  /** The Blobs operations of one function call, its work after the reply included. */
  async function operations(call: (context: Context) => Promise<Response>) {
    const pending: Promise<unknown>[] = [];
    const context = {
      ip: "203.0.113.1",
      waitUntil: (p: Promise<unknown>) => void pending.push(p),
    } as unknown as Context;
    await blobs.settled();
    blobs.operations.length = 0;
    const response = await call(context);
    await Promise.allSettled(pending);
    await blobs.settled();
    const counts: Record<string, number> = {};
    for (const { type } of blobs.operations) counts[type] = (counts[type] ?? 0) + 1;
    return { status: response.status, counts };
  }

  async function costs(listed: number) {
    const store = blobsStore(blobs.store(), { chunkRows: 100 });
    for (let n = 0; n < listed; n += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, listed - n) }, (_, i) =>
          store.add({
            email: `listed${n + i}@example.com`,
            emailKey: `listed${n + i}@example.com`,
            source: "netlify",
            confirmationSentAt: new Date(),
          }),
        ),
      );
    }
    await store.fold();
    // One call first, so that every measured call finds the function instance warm, as most do.
    await operations((context) => signup(post(signupBody(`warm${listed}@example.com`)), context));
    const newSignup = await operations((context) => signup(post(signupBody(`new${listed}@example.com`)), context));
    const repeat = await operations((context) => signup(post(signupBody(`NEW${listed}@example.com`)), context));
    const mail = smtp.deliveries.at(-1)!.mail;
    const confirmToken = confirmTokenOf(mail);
    const confirmPage = await operations((context) =>
      confirm(new Request(`${site}/waitlist/confirm?token=${confirmToken}`), context),
    );
    const confirmed = await operations((context) =>
      confirm(
        new Request(`${site}/waitlist/confirm`, {
          method: "POST",
          headers: { ...formType, origin: site },
          body: form({ token: confirmToken }),
        }),
        context,
      ),
    );
    const link = leaveLinks(mail).text;
    const page = await operations((context) => leave(new Request(link), context));
    const left = await operations((context) =>
      leave(
        new Request(`${site}/waitlist/leave`, {
          method: "POST",
          headers: { ...formType, origin: site },
          body: form({ token: new URL(link).searchParams.get("token")! }),
        }),
        context,
      ),
    );
    return { newSignup, repeat, confirmPage, confirmed, page, left };
  }
  const post = (body: string) =>
    new Request(`${site}/`, { method: "POST", headers: { ...formType, accept: "text/plain" }, body });

  it("costs the same Blobs operations at 0 and at 300 listed addresses, and never lists a key", async () => {
    const empty = await costs(0);
    const full = await costs(300);
    expect(full).toEqual(empty);
    for (const cost of Object.values(full)) {
      expect(cost.status).toBe(200);
      expect(cost.counts.list ?? 0).toBe(0);
    }
    // What each costs, as docs/netlify.md states it.
    // Its mail also counts one more among its mailbox's e-mails of the day: a read and a write (request-path.ts); and
    // reads whether its mailbox is held after a bounce or a complaint (suppressions.ts): one read by key. Its asked/
    // note is filed by the sweep's fold, with its first page (ledger.ts), not on the request path.
    expect(full.newSignup.counts).toEqual({ set: 5, get: 4 });
    // A repeat: the same two writes before the reply, then its repeat counted on the record (a read and a write), as
    // the SQL stores count it; after the reply, a read to see whether to send the e-mail again.
    expect(full.repeat.counts).toEqual({ set: 3, get: 2 });
    expect(full.confirmPage.counts).toEqual({ get: 1 });
    // A first confirm: a pending note for the sweep's fold, the record, and its invite code's key (codes/).
    expect(full.confirmed.counts).toEqual({ set: 3, get: 1 });
  });
});

describe("on npm start (SQLite)", () => {
  it("calls only the store's keyed methods for a signup, a repeat, its confirmation, the confirm link and a leave", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "request-cost-"));
    const smtp = await startSmtpServer();
    const called = new Set<string>();
    const real = new SqliteStore(path.join(dir, "waitlist.db"));
    // The store a request gets, recording every method called on it.
    const store = new Proxy(real, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          called.add(String(name));
          return (value as (...args: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as FullStore;
    const waitlist = await createWaitlist({
      ...testSite,
      privacyPolicy: testPolicy,
      store,
      mailer: createMailer({ smtpUrl: smtp.url, from: "t@example.com", outboxDir: dir }),
      source: "start",
      rateLimitPerMinute: 100,
    });
    const publicDir = path.join(dir, "public");
    writePublicDir(publicDir);
    const server = http.createServer(createApp({ publicDir, endpoints: waitlist, log: () => {} }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const headers = { ...formType, Accept: "text/plain" };
      await request(`${url}/`, { method: "POST", headers, body: signupBody("ada@example.com") });
      await request(`${url}/`, { method: "POST", headers, body: signupBody("ADA@example.com") });
      await smtp.waitFor(1);
      await waitlist.confirmations.idle();
      const confirmToken = confirmTokenOf(smtp.deliveries[0]!.mail);
      await request(`${url}/waitlist/confirm?token=${confirmToken}`);
      const confirmed = await request(`${url}/waitlist/confirm`, {
        method: "POST",
        headers: { ...headers, Origin: url },
        body: form({ token: confirmToken }),
      });
      expect(confirmed.status).toBe(200);
      const token = new URL(leaveLinks(smtp.deliveries[0]!.mail).text).searchParams.get("token")!;
      await request(`${url}/waitlist/leave?token=${token}`);
      const left = await request(`${url}/waitlist/leave`, { method: "POST", headers, body: form({ token }) });
      expect(left.status).toBe(200);
      // No claim: a new signup's record is made held for its own sender's first attempt (NewSignup.claimFor).
      expect([...called].sort()).toEqual([
        "add",
        "askToConfirm",
        "confirm",
        "countMailboxMail",
        "lookup",
        "markConfirmationSent",
        "remove",
        "secret",
        "suppressedUntil",
      ]);
      expect([...called].every((name) => keyed.includes(name as keyof FullStore))).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await waitlist.confirmations.close();
      await real.close();
      await smtp.close();
      removeDir(dir);
    }
  });
});
