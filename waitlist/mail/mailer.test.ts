import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMailer, isConnectionRefused, isPermanentFailure, isSendingFailure } from "./mailer";
import { closedPort, startSmtpServer } from "../../test/support/smtp";
import { startMailProvider } from "../../test/support/mail-provider";
import { until } from "../../test/support/until";

const mode = (one: string) => (statSync(one).mode & 0o777).toString(8);
const message = (to: string, id: string) => ({
  to,
  subject: "Confirm your spot",
  text: "a confirm link",
  html: "<p>a confirm link</p>",
  messageId: `<${id}@jointandem.app>`,
  headers: {},
});

describe("the outbox (no SMTP_URL)", () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "outbox-"));
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the folder (0700) and each message (0600) to this user under umask 022, an old 0755 folder too", async () => {
    const outboxDir = path.join(dir, "data", "outbox");
    const mailer = createMailer({ from: "hello@jointandem.app", outboxDir });
    await mailer.send(message("ada@example.com", "one"));
    expect(mode(outboxDir)).toBe("700");
    const [name] = readdirSync(outboxDir);
    expect(mode(path.join(outboxDir, name!))).toBe("600");
    mailer.close();

    const oldDir = path.join(dir, "old-outbox");
    mkdirSync(oldDir, { mode: 0o755 });
    chmodSync(oldDir, 0o755);
    const later = createMailer({ from: "hello@jointandem.app", outboxDir: oldDir });
    await later.send(message("grace@example.com", "two"));
    expect(mode(oldDir)).toBe("700");
    expect(readdirSync(oldDir).map((one) => mode(path.join(oldDir, one)))).toEqual(["600"]);
    later.close();
  });
});

describe("what a failed send says, as nodemailer reports a real server's replies", () => {
  /** The error of one send through a server that answers as `options` say (none: a closed port). */
  async function failureOf(options?: Parameters<typeof startSmtpServer>[1]) {
    const smtp = options ? await startSmtpServer(0, options) : undefined;
    const url = smtp?.url ?? `smtp://127.0.0.1:${await closedPort()}`;
    const mailer = createMailer({ smtpUrl: url, from: "hello@jointandem.app", outboxDir: os.tmpdir() });
    try {
      await mailer.send(message("ada@example.com", "one"));
      return undefined;
    } catch (error) {
      return error;
    } finally {
      mailer.close();
      await smtp?.close();
    }
  }

  it("is this recipient's for good only when the server refuses its RCPT TO with a 5xx", async () => {
    const refused = await failureOf({ refuseRecipient: () => true });
    expect([isPermanentFailure(refused), isSendingFailure(refused)]).toEqual([true, false]);
    // Greylisting or a full queue: for now, and this recipient's.
    const deferred = await failureOf({ deferRecipient: () => true });
    expect([isPermanentFailure(deferred), isSendingFailure(deferred)]).toEqual([false, false]);
  });

  it("is the sending's, never the recipient's, when the server refuses the sender or cannot be reached", async () => {
    // A provider refusing a sender it has not verified, or over its quota: every recipient would be refused alike.
    const sender = await failureOf({ refuseSender: () => ({ code: 554, text: "5.7.1 Sender address not verified" }) });
    expect([isPermanentFailure(sender), isSendingFailure(sender)]).toEqual([false, true]);
    const down = await failureOf();
    expect([isPermanentFailure(down), isSendingFailure(down)]).toEqual([false, true]);
  });
});

describe("what a sent message's timing says", () => {
  it("tells how long the server took to answer after it had the whole message, not the connection's opening", async () => {
    // A provider that answers 300 ms after the message's end, as SES or Resend take their time to accept it.
    const smtp = await startSmtpServer(0, {
      afterData: () => new Promise((resolve) => setTimeout(() => resolve(undefined), 300)),
    });
    const mailer = createMailer({ smtpUrl: smtp.url, from: "hello@jointandem.app", outboxDir: os.tmpdir() });
    try {
      const began = Date.now();
      const sent = await mailer.send(message("ada@example.com", "one"));
      const tookMs = Date.now() - began;
      expect(sent?.answeredAfterMs).toBeGreaterThanOrEqual(250);
      // Less than the whole send: the connection's opening and greeting, and the envelope, came before it.
      expect(sent!.answeredAfterMs).toBeLessThan(tookMs);
    } finally {
      mailer.close();
      await smtp.close();
    }
  });
});

describe("a lease's connection (the pace's: pace-leases.ts)", () => {
  const lease = (index: number, refused = () => {}) => ({ lease: index, openForMs: 10_000, refused });

  it("sends a lease's messages over its one connection, one per lease, closed once idle", async () => {
    let opened = 0;
    let closed = 0;
    const smtp = await startSmtpServer(0, { onConnect: () => opened++, onClose: () => closed++ });
    const mailer = createMailer({
      smtpUrl: smtp.url,
      from: "hello@jointandem.app",
      outboxDir: os.tmpdir(),
      idleMs: 50,
    });
    try {
      for (const id of ["one", "two", "three"]) await mailer.send(message("ada@example.com", id), lease(0));
      expect(opened).toBe(1);
      await Promise.all([
        mailer.send(message("grace@example.com", "four"), lease(0)),
        mailer.send(message("alan@example.com", "five"), lease(1)),
      ]);
      expect(opened).toBe(2);
      // Idle past `idleMs`: both closed, none left open past the lease the process no longer renews.
      await until(() => closed === 2, 5_000);
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it("tells the pace when the provider refuses a connection past its limit (421 at the greeting)", async () => {
    let refusals = 0;
    const provider = await startMailProvider({ profile: { connections: 1 } });
    // The first lease's connection stays open for its next message (idleMs) while the other lease's is asked for.
    const mailer = createMailer({ smtpUrl: provider.url, from: "hello@jointandem.app", outboxDir: os.tmpdir() });
    try {
      const first = mailer.send(message("ada@example.com", "one"), lease(0));
      await until(() => provider.counters.maxConnections === 1, 5_000);
      const second = mailer.send(
        message("grace@example.com", "two"),
        lease(1, () => refusals++),
      );
      const [sent, refused] = await Promise.allSettled([first, second]);
      expect(sent.status).toBe("fulfilled");
      expect(refused.status).toBe("rejected");
      expect(isConnectionRefused((refused as PromiseRejectedResult).reason)).toBe(true);
      expect([refusals, provider.counters.refusedConnections]).toEqual([1, 1]);
    } finally {
      mailer.close();
      await provider.close();
    }
  });
});
