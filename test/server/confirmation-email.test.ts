import { readFileSync } from "node:fs";
import { domainToASCII } from "node:url";
import path from "node:path";
import Database from "better-sqlite3";
import { simpleParser } from "mailparser";
import { run } from "../../cli/run";
import {
  formType,
  removeDir,
  request,
  signupBody,
  startServer,
  type Adapter,
  type TestServer,
} from "../support/harness";
import {
  atServer,
  closedPort,
  leaveLinks,
  postfixRefusal,
  sesRefusal,
  startSmtpServer,
  type ServerReply,
  type TestSmtpServer,
} from "../support/smtp";
import { until } from "../support/until";
import { patience } from "../support/patience";

jest.setTimeout(patience(30_000));

const fetchHeaders = { ...formType, Accept: "text/plain" };
const post = (server: TestServer, body: string) =>
  request(`${server.url}/`, { method: "POST", headers: fetchHeaders, body });

/**
 * How many times the sender has taken each address's confirmation on (claimConfirmation), in the order they
 * signed up. Read from the SQLite file's table: the count is the store's own bookkeeping, which no read of the
 * store interface and no founders' command gives (the Blobs store keeps it out of their view too). Everything
 * else a test here checks is read through the store's API.
 */
function attempts(server: TestServer): { email: string; attempts: number }[] {
  const db = new Database(server.dbFile, { readonly: true });
  try {
    return db.prepare("SELECT email, confirmation_attempts AS attempts FROM signups ORDER BY id").all() as {
      email: string;
      attempts: number;
    }[];
  } finally {
    db.close();
  }
}

/** When the confirmation of the address that signed up first went out: null while it is owed. */
const firstSentAt = async (server: TestServer) => (await server.signups())[0]!.confirmationSentAt;

describe.each<Adapter>(["start", "develop", "netlify"])("confirmation e-mails through the %s adapter", (adapter) => {
  let smtp: TestSmtpServer;
  let server: TestServer;

  beforeEach(async () => {
    smtp = await startSmtpServer();
    server = await startServer(adapter, { smtpUrl: smtp.url });
  });
  afterEach(async () => {
    await server.close();
    await smtp.close();
    removeDir(server.dir);
  });

  it("sends exactly one message per new address across a burst of repeats and honeypot hits", async () => {
    const bodies = [
      signupBody("ada@example.com"),
      signupBody("grace@example.com"),
      signupBody("ADA@example.com"),
      signupBody(" ada@EXAMPLE.com "),
      signupBody("bot@example.com", { "bot-field": "spam" }),
      signupBody("katherine@example.com"),
      signupBody("Grace@Example.com"),
      signupBody("bot2@example.com", { "bot-field": "x" }),
      signupBody("not-an-address"),
    ];
    const replies = await Promise.all(bodies.map((body) => post(server, body)));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 422]);
    await smtp.waitFor(3);
    // Every signup stored and confirmed, and nothing left in flight: a wrong fourth message would be sent by now.
    await until(async () => (await server.signups()).every((row) => row.confirmationSentAt !== null));
    await server.outbox();
    // The spelling kept is the one that arrived first, which concurrent requests leave to chance.
    expect(
      smtp.deliveries
        .map((delivery) => delivery.envelope.to)
        .flat()
        .map((address) => address.toLowerCase())
        .sort(),
    ).toEqual(["ada@example.com", "grace@example.com", "katherine@example.com"]);
    // One attempt each (the SQLite file shows them; the Blobs records keep them too, out of the founders' view).
    if (adapter !== "netlify") expect(attempts(server).every((row) => row.attempts === 1)).toBe(true);
  });

  it("sends a message with the brand, what happens next, the contact and the privacy link", async () => {
    await post(server, signupBody("Ada.Lovelace@Example.com"));
    const { envelope, mail, raw } = (await smtp.waitFor(1))[0]!;
    expect(envelope).toEqual({ from: "hello@jointandem.app", to: ["Ada.Lovelace@example.com"] });
    expect(mail.to && !Array.isArray(mail.to) && mail.to.text).toBe("Ada.Lovelace@example.com");
    expect(mail.from?.value).toEqual([{ address: "hello@jointandem.app", name: "Tandem" }]);
    expect(mail.replyTo?.value[0]?.address).toBe("hello@jointandem.app");
    expect(mail.subject).toBe("Confirm your spot on the Tandem waitlist");
    for (const part of [mail.text ?? "", String(mail.html)]) {
      expect(part).toContain("Tandem");
      expect(part).toContain("grow. together.");
      expect(part).toContain("Ada.Lovelace@example.com");
      expect(part).toContain("Q4 2025");
      expect(part).toContain("Early access is free.");
      expect(part).toContain("hello@jointandem.app");
      expect(part).toContain("https://jointandem.app/privacy-policy/");
    }
    expect(mail.html).toMatch(/<a href="https:\/\/jointandem\.app\/privacy-policy\/"/);
    expect(mail.html).toContain('name="viewport"');
    // No tracking pixels, no remote images, nothing loaded from anywhere.
    expect(raw).not.toMatch(/<img|background-image|url\(/i);
    // A personal leave link in both parts and for the mail client's own button (RFC 8058), and the contact address.
    const links = leaveLinks(mail);
    expect(links.text).toMatch(/^https:\/\/jointandem\.app\/waitlist\/leave\?token=[\w-]{80,}$/);
    expect(links.html).toBe(links.text);
    expect(links.header).toBe(links.text);
    expect(links.mailto).toBe("mailto:hello@jointandem.app?subject=unsubscribe");
    expect(mail.html).toMatch(
      /<a href="https:\/\/jointandem\.app\/waitlist\/leave\?token=[^"]+"[^>]*>Leave the waitlist<\/a>/,
    );
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    // A provider that tracks by a header's leave (Postmark) neither adds a pixel nor rewrites a link (issue 67).
    // Header names are case-free (nodemailer writes X-Pm-Trackopens), and Postmark reads them so.
    expect(raw).toMatch(/^X-PM-TrackOpens: false$/im);
    expect(raw).toMatch(/^X-PM-TrackLinks: None$/im);
  });
});

describe("the reply and the mail server", () => {
  it("answers before a slow mail server has taken the message", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const smtp = await startSmtpServer(0, { beforeData: () => gate });
    const server = await startServer("start", { smtpUrl: smtp.url });
    try {
      const reply = await post(server, signupBody("patient@example.com"));
      expect(reply.status).toBe(200);
      expect((await server.rows()).map((row) => row.email)).toEqual(["patient@example.com"]);
      expect(smtp.deliveries).toHaveLength(0);
      release();
      await smtp.waitFor(1);
    } finally {
      release();
      await server.close();
      await smtp.close();
      removeDir(server.dir);
    }
  });

  it("keeps the signup when the mail server is down, holds every sender rather than retrying each address, and sends exactly once", async () => {
    const port = await closedPort();
    const smtpUrl = `smtp://127.0.0.1:${port}`;
    let now = Date.now();
    const server = await startServer("start", { smtpUrl, sweepMs: 50, clock: () => new Date(now) });
    try {
      const reply = await post(server, signupBody("offline@example.com"));
      expect(reply.status).toBe(200);
      await until(() => server.logs.join("\n").includes("the mail provider is not taking mail"));
      // Given back owed, due when the hold ends: its one attempt counted (its mailbox's day was counted, once), never
      // a failure on the retry schedule. The hold is said once, naming nobody.
      expect(attempts(server)[0]!.attempts).toBe(1);
      expect(await firstSentAt(server)).toBeNull();
      expect(server.logs.filter((line) => line.includes("not taking mail"))).toHaveLength(1);
      expect(server.logs.join("")).not.toContain("offline@example.com");

      // The mail server comes back; once the hold's minute is over, the running server's schedule delivers it.
      const smtp = await startSmtpServer(port);
      try {
        now += 61_000;
        await smtp.waitFor(1);
        await until(async () => (await firstSentAt(server)) !== null);
        const env = { WAITLIST_DB: server.dbFile, SMTP_URL: smtpUrl, OUTBOX_DIR: server.outboxDir };
        await expect(run(["resend-pending"], env)).resolves.toMatch(/^Sent 0 confirmations .*; 0 still pending\.$/);
        expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["offline@example.com"]]);
      } finally {
        await smtp.close();
      }
    } finally {
      await server.close();
      removeDir(server.dir);
    }
  });

  it("resend-pending exits non-zero while a confirmation is owed for a reason that may pass", async () => {
    const port = await closedPort();
    const server = await startServer("start", { smtpUrl: `smtp://127.0.0.1:${port}`, retryDelaysMs: [60_000] });
    try {
      expect((await post(server, signupBody("offline@example.com"))).status).toBe(200);
      await until(() => server.logs.join("\n").includes("the mail provider is not taking mail"));
      await server.close();
      const env = { WAITLIST_DB: server.dbFile, SMTP_URL: `smtp://127.0.0.1:${port}`, OUTBOX_DIR: server.outboxDir };
      // The founder tries through the site's hold: still down, so it stops, and says until when nothing is sent.
      await expect(run(["resend-pending"], env)).rejects.toThrow(
        /^Sent 0 confirmations .*; 1 still pending\.\nStopped: the mail provider asked to wait \(.*ECONNREFUSED.*\) until /,
      );
      const smtp = await startSmtpServer(port);
      try {
        await expect(run(["resend-pending"], env)).resolves.toBe(
          `Sent 1 confirmation (via smtp://127.0.0.1:${port}); 0 still pending.`,
        );
        expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["offline@example.com"]]);
      } finally {
        await smtp.close();
      }
    } finally {
      removeDir(server.dir);
    }
  });

  it("marks an address the mail server refuses for good as failed, stops retrying, and resend-pending stays green", async () => {
    const smtp = await startSmtpServer(0, { refuseRecipient: (address) => address.startsWith("nobody") });
    const server = await startServer("start", { smtpUrl: smtp.url, retryDelaysMs: [20], sweepMs: 50 });
    try {
      expect((await post(server, signupBody("nobody@example.com"))).status).toBe(200);
      expect((await post(server, signupBody("ada@example.com"))).status).toBe(200);
      await smtp.waitFor(1);
      await until(() => server.logs.join("").includes("refused for good"));
      // Sweeps after the retry delay (20 ms) has passed: one attempt, no more.
      const retryDue = Date.now() + 20;
      await until(() => Date.now() > retryDue);
      for (let sweep = 0; sweep < 3; sweep++) await server.confirmations!.sweep();
      expect(
        (await server.signups()).map(({ email, confirmationSentAt }) => ({ email, sentAt: confirmationSentAt })),
      ).toEqual([
        { email: "nobody@example.com", sentAt: null },
        { email: "ada@example.com", sentAt: expect.any(String) },
      ]);
      expect(attempts(server)).toEqual([
        { email: "nobody@example.com", attempts: 1 },
        { email: "ada@example.com", attempts: 1 },
      ]);
      const env = { WAITLIST_DB: server.dbFile, SMTP_URL: smtp.url, OUTBOX_DIR: server.outboxDir };
      await expect(run(["count"], env)).resolves.toMatch(
        /^2 addresses on the waitlist: 0 confirmed, 2 not \(yet\)\.\nConfirmation e-mails: 1 sent, 0 pending, 1 refused by the mail server\.\n {2}refused: n\*\*\*@example\.com \(.*\): .*550.*Mailbox unavailable/,
      );
      await expect(run(["resend-pending"], env)).resolves.toMatch(/^Sent 0 confirmations .*; 0 still pending\.$/);
      await expect(run(["export", "--record", "--format", "json"], env)).resolves.toContain(
        '"confirmationFailedAt": "20',
      );
      expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["ada@example.com"]]);
    } finally {
      await server.close();
      await smtp.close();
      removeDir(server.dir);
    }
  });
});

describe("without SMTP_URL", () => {
  it("writes one parseable .eml per new signup to the outbox, and deletes it when its address leaves", async () => {
    const server = await startServer("start");
    try {
      for (const email of ["ada@example.com", "ADA@example.com", "grace@example.com"]) {
        expect((await post(server, signupBody(email))).status).toBe(200);
      }
      await post(server, signupBody("bot@example.com", { "bot-field": "1" }));
      await server.confirmations?.idle();
      const files = await server.outbox();
      expect(files).toHaveLength(2);
      const mails = await Promise.all(
        files.map((name) => simpleParser(readFileSync(path.join(server.outboxDir, name)))),
      );
      expect(mails.map((mail) => mail.to && !Array.isArray(mail.to) && mail.to.text).sort()).toEqual([
        "ada@example.com",
        "grace@example.com",
      ]);
      expect(
        mails.every((mail) => mail.subject === "Confirm your spot on the Tandem waitlist" && mail.html && mail.text),
      ).toBe(true);

      // Leaving deletes the entry at once, and the mail the outbox kept of it: the other stays.
      const ada = mails.find((mail) => mail.to && !Array.isArray(mail.to) && mail.to.text === "ada@example.com")!;
      const left = await request(atServer(server.url, leaveLinks(ada).text), {
        method: "POST",
        headers: { ...formType, Accept: "text/plain" },
        body: "List-Unsubscribe=One-Click",
      });
      expect(left.status).toBe(200);
      const kept = await server.outbox();
      expect(kept).toHaveLength(1);
      const rest = await simpleParser(readFileSync(path.join(server.outboxDir, kept[0]!)));
      expect(rest.to && !Array.isArray(rest.to) && rest.to.text).toBe("grace@example.com");
    } finally {
      await server.close();
      removeDir(server.dir);
    }
  });
});

describe.each<Adapter>(["start", "develop", "netlify"])(
  "a mail server that quotes the address it refuses, through the %s adapter (issue 52)",
  (adapter) => {
    // Each address refused in the words of a real server: Postfix and SES quote it, others upper-case it, encode it
    // or name the part before the @ alone. The address classes: Unicode local parts, an IDN domain, upper case.
    const replies: Record<string, (address: string) => ServerReply> = {
      "bob@example.com": postfixRefusal,
      "Ada.Lovelace@Example.com": sesRefusal,
      "ånna@straße.de": postfixRefusal,
      "zoë@example.com": (address) => ({ code: 550, text: `5.1.1 ${encodeURIComponent(address)} unknown` }),
      "grace@example.com": () => ({ code: 550, text: "5.1.1 User GRACE unknown; mailbox grace disabled" }),
      "KATHERINE@example.com": (address) => ({ code: 550, text: `5.1.1 <${address.toUpperCase()}> no such user` }),
    };
    /** An address as the mail server is given it: the domain in ASCII. */
    const envelopeForm = (email: string) => {
      const at = email.lastIndexOf("@");
      return `${email.slice(0, at)}@${domainToASCII(email.slice(at + 1).toLowerCase())}`;
    };
    /** What must be nowhere whole: each address, as the mail server was given it, its local part as a word. */
    const traces = Object.keys(replies).flatMap((email) => {
      const local = email.slice(0, email.lastIndexOf("@"));
      return [email, envelopeForm(email), `${local}@`, `<${local}>`, ` ${local} `];
    });
    const expectNoAddressIn = (text: string) => {
      const lower = text.toLowerCase();
      for (const trace of traces) expect(lower).not.toContain(trace.toLowerCase());
      expect(lower).not.toMatch(/%40|=40/);
    };

    it("logs and keeps the server's reply with every address in it shortened", async () => {
      const logged: string[] = [];
      const capture = (...line: unknown[]) => void logged.push(line.map(String).join(" "));
      const spies = (["log", "warn", "error"] as const).map((name) =>
        jest.spyOn(console, name).mockImplementation(capture),
      );
      const smtp = await startSmtpServer(0, {
        replyToRecipient: (address) => {
          const email = Object.keys(replies).find(
            (one) => envelopeForm(one).toLowerCase() === envelopeForm(address).toLowerCase(),
          );
          return email ? replies[email]!(address) : undefined;
        },
      });
      const server = await startServer(adapter, { smtpUrl: smtp.url });
      try {
        // SES's refusal is about the sending (its sandbox), not the address: it holds every sender and refuses nobody,
        // so it comes last, and its words are kept as the reason the confirmation is still owed.
        const sending = "Ada.Lovelace@Example.com";
        for (const email of Object.keys(replies).filter((one) => one !== sending)) {
          expect((await post(server, signupBody(email))).status).toBe(200);
        }
        await until(
          async () => (await server.signups()).every((row) => row.confirmationFailedAt !== null),
          patience(15_000),
        );
        expect((await post(server, signupBody(sending))).status).toBe(200);
        await until(
          async () => (await server.signups()).every((row) => row.confirmationError !== null),
          patience(15_000),
        );
        expect((await server.signups()).filter((row) => row.confirmationFailedAt === null)).toHaveLength(1);
        await server.outbox();
        const rows = await server.signups();
        const errors = rows.map((row) => row.confirmationError ?? "");
        // The refusals were kept, in the server's words, each naming the address shortened or not at all.
        expect(errors.join("\n")).toMatch(/Recipient address rejected: User unknown in virtual mailbox table/);
        expect(errors.join("\n")).toMatch(/failed the check in region US-EAST-1: A\*\*\*@example\.com/);
        expect(errors.join("\n")).toMatch(/User \*\*\* unknown; mailbox \*\*\* disabled/);
        for (const error of errors) expectNoAddressIn(error);
        const lines = [...server.logs, ...logged].join("\n");
        expect(lines).toMatch(/refused for good/);
        expectNoAddressIn(lines);
        if (adapter !== "netlify") {
          // What the founders' commands show of them: the addresses shortened, and the replies.
          const env = { WAITLIST_DB: server.dbFile, SMTP_URL: smtp.url, OUTBOX_DIR: server.outboxDir };
          const counted = await run(["count"], env);
          expect(counted).toMatch(/refused: b\*\*\*@example\.com/);
          expectNoAddressIn(counted);
          expectNoAddressIn(await run(["stats"], env));
        }
      } finally {
        await server.close();
        await smtp.close();
        for (const spy of spies) spy.mockRestore();
        removeDir(server.dir);
      }
    });
  },
);
