import { createConfirmations } from "./confirmations";
import type { Mailer } from "./mailer";
import { createMailPace } from "./pace";
import { SqliteStore } from "../stores/sqlite-store";
import { testSite } from "../../test/support/site-settings";

/** A mailer whose sends finish only when the test says so. */
function heldMailer() {
  const held: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  const mailer: Mailer = {
    destination: "held",
    send: () =>
      new Promise<void>((resolve) => {
        most = Math.max(most, ++inFlight);
        held.push(() => {
          inFlight--;
          resolve();
        });
      }),
    close: () => {},
  };
  return { mailer, held, most: () => most };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A mailer that records whom it sent to, and fails a message whenever `failure` gives an error for it. */
function recordingMailer(failure: (to: string) => Error | undefined) {
  const sent: string[] = [];
  const mailer: Mailer = {
    destination: "test",
    send: async (message) => {
      const error = failure(String(message.to));
      if (error) throw error;
      sent.push(String(message.to));
    },
    close: () => {},
  };
  return { mailer, sent };
}

async function storeWith(count: number) {
  const store = new SqliteStore(":memory:");
  const owed = [];
  for (let i = 0; i < count; i++) {
    const entry = { email: `c${i}@example.com`, emailKey: `c${i}@example.com` };
    const { createdAt } = await store.add({ ...entry, source: "start" });
    owed.push({ ...entry, createdAt, askedSince: createdAt });
  }
  return { store, owed };
}

const linkSecret = "a-secret-of-at-least-32-characters";

/** The pace the store keeps for a provider of these limits (no rate to speak of unless given). */
const paceOver = (store: SqliteStore, limits: Partial<Parameters<typeof createMailPace>[0]["limits"]> = {}) =>
  createMailPace({ store, limits: { ratePerSecond: 1e6, connections: 4, dailyLimit: null, ...limits } });

describe("confirmations under a burst", () => {
  it.each([4, 16])("keeps at most the provider's %s connections in flight and sends every one", async (connections) => {
    const { store, owed } = await storeWith(40);
    const { mailer, held, most: inFlight } = heldMailer();
    const pace = paceOver(store, { connections });
    const confirmations = createConfirmations({ ...testSite, store, mailer, linkSecret, pace, log: () => {} });
    for (const one of owed) void confirmations.sendSoon(one);
    // The first held until every connection is taken: as many as the provider allows, and no more.
    while (held.length < connections) await tick();
    for (let sent = 0; sent < 40; sent++) {
      while (held.length === 0) await tick();
      held.shift()!();
      await tick();
    }
    await confirmations.idle();
    expect(inFlight()).toBe(connections);
    expect(await store.pendingConfirmations()).toEqual([]);
    await store.close();
  });

  it("has the next messages claimed and waiting while the connections are busy: the store's round trips overlap the messages", async () => {
    const { store, owed } = await storeWith(40);
    const { mailer, held, most: inFlight } = heldMailer();
    // SES's 14 a second over 2 connections: an attempt per connection would leave the claim, the reads and the
    // writes of the next message until a connection is free.
    const pace = paceOver(store, { ratePerSecond: 14, connections: 2 });
    const confirmations = createConfirmations({ ...testSite, store, mailer, linkSecret, pace, log: () => {} });
    for (const one of owed) void confirmations.sendSoon(one);
    while (held.length < 2) await tick();
    for (let i = 0; i < 20; i++) await tick();
    const sending = async () => (await store.all()).filter((row) => row.state === "sending").length;
    // Two messages at the provider; the 1.2 s's worth of attempts that keep its rate (24) claimed behind them.
    expect(held).toHaveLength(2);
    expect(await sending()).toBe(24);
    while ((await store.pendingConfirmations()).length > 0) {
      while (held.length === 0) await tick();
      held.shift()!();
      await tick();
    }
    await confirmations.idle();
    expect(inFlight()).toBe(2);
    await store.close();
  });

  it("trusts a signup's own hold only in the first half of its lease: one that waited longer claims afresh, and sends nothing another sender took over", async () => {
    const store = new SqliteStore(":memory:");
    let now = Date.parse("2026-12-01T10:00:00Z");
    const entry = { email: "late@example.com", emailKey: "late@example.com" };
    // Made held for its own sender for 10 s, as the signup endpoint makes it.
    const { createdAt } = await store.add({ ...entry, source: "start", at: new Date(now), claimFor: 10_000 });
    const { mailer, sent } = recordingMailer(() => undefined);
    const confirmations = createConfirmations({
      ...testSite,
      store,
      mailer,
      linkSecret,
      leaseMs: 10_000,
      clock: () => new Date(now),
      log: () => {},
    });
    // Its attempt's slot came 11 s on: the hold has lapsed, and another sender took it over meanwhile.
    now += 11_000;
    // Its second attempt: the first was the hold the signup made.
    expect(await store.claimConfirmation(entry.emailKey, { now: new Date(now), leaseMs: 10_000 })).toBe(2);
    await confirmations.sendSoon({ ...entry, createdAt, askedSince: createdAt }, { claimed: true });
    await confirmations.idle();
    expect(sent).toEqual([]);
    // One whose slot came at once sends on its hold, with no claim of its own.
    const soon = { email: "soon@example.com", emailKey: "soon@example.com" };
    const made = await store.add({ ...soon, source: "start", at: new Date(now), claimFor: 10_000 });
    await confirmations.sendSoon({ ...soon, createdAt: made.createdAt, askedSince: made.createdAt }, { claimed: true });
    await confirmations.idle();
    expect(sent).toEqual(["soon@example.com"]);
    await store.close();
  });

  it("on close, finishes the sends under way and leaves the queued ones pending", async () => {
    const { store, owed } = await storeWith(10);
    const { mailer, held } = heldMailer();
    const pace = paceOver(store);
    const confirmations = createConfirmations({ ...testSite, store, mailer, linkSecret, pace, log: () => {} });
    for (const one of owed) void confirmations.sendSoon(one);
    while (held.length < 4) await tick();
    const closing = confirmations.close();
    for (const release of held.splice(0)) release();
    await closing;
    expect(await store.pendingConfirmations()).toHaveLength(6);
    confirmations.sendSoon(owed[9]!);
    await confirmations.idle();
    expect(await store.pendingConfirmations()).toHaveLength(6);
    await store.close();
  });
});

describe("the cap on e-mails per mailbox", () => {
  it("counts a message once however often it is retried, and never tries one past the cap again", async () => {
    const store = new SqliteStore(":memory:");
    let failures = 2;
    // The first two attempts fail for now, as a mail server's 4xx does: a retry is the same message.
    const { mailer, sent } = recordingMailer(() => (failures-- > 0 ? new Error("451 try again later") : undefined));
    const confirmations = createConfirmations({
      ...testSite,
      store,
      mailer,
      linkSecret,
      mailboxDailyMails: 2,
      retryDelaysMs: [0],
      log: () => {},
    });
    // Of a cap of two, one is set apart for the mailbox's own address (ada@gmail.com), one is the other spellings'.
    for (const email of ["Ada+1@gmail.com", "ada@gmail.com", "ADA@googlemail.com"]) {
      await store.add({ email, emailKey: email.toLowerCase(), source: "start" });
    }
    // The first sweep: two failed for now, the third past the cap of two. Then the two retries, counted no more.
    await expect(confirmations.sweep()).resolves.toEqual({ sent: 0, retrying: 2, refused: 1, held: 0, more: false });
    await expect(confirmations.sweep()).resolves.toEqual({ sent: 2, retrying: 0, refused: 0, held: 0, more: false });
    await expect(confirmations.sweep()).resolves.toEqual({ sent: 0, retrying: 0, refused: 0, held: 0, more: false });
    expect(sent.sort()).toEqual(["Ada+1@gmail.com", "ada@gmail.com"]);
    const capped = (await store.all()).filter((row) => row.confirmationFailedAt !== null);
    expect(capped.map((row) => row.email)).toEqual(["ADA@googlemail.com"]);
    expect(capped[0]!.confirmationError).toMatch(/went to this mailbox today/);
    await confirmations.close();
    await store.close();
  });

  it("asks an address past the cap again when it signs up a day later, as it never does one the server refused", async () => {
    const store = new SqliteStore(":memory:");
    let now = new Date("2026-11-26T09:00:00Z");
    const { mailer, sent } = recordingMailer((to) =>
      to === "gone@example.com"
        ? Object.assign(new Error("550 no such user"), { responseCode: 550, command: "RCPT TO" })
        : undefined,
    );
    const confirmations = createConfirmations({
      ...testSite,
      store,
      mailer,
      linkSecret,
      mailboxDailyMails: 1,
      log: () => {},
      clock: () => now,
    });
    for (const email of ["ada+1@gmail.com", "a.da@gmail.com", "gone@example.com"]) {
      await store.add({ email, emailKey: email, source: "start", at: now });
    }
    await expect(confirmations.sweep()).resolves.toEqual({ sent: 1, retrying: 0, refused: 2, held: 0, more: false });
    const signUpAgain = async (emailKey: string) => {
      confirmations.askAgainSoon(emailKey);
      await tick();
      await confirmations.idle();
    };
    // The same day, the mailbox has had its e-mail: a repeat signup is not mailed.
    now = new Date("2026-11-26T21:00:00Z");
    await signUpAgain("a.da@gmail.com");
    expect(sent).toEqual(["ada+1@gmail.com"]);
    // A day after the e-mail it was not sent, it is: the mailbox's new day has room. The refused address never is.
    now = new Date("2026-11-27T09:00:01Z");
    await signUpAgain("a.da@gmail.com");
    await signUpAgain("gone@example.com");
    expect(sent).toEqual(["ada+1@gmail.com", "a.da@gmail.com"]);
    expect((await store.failedConfirmations()).map(({ email }) => email)).toEqual(["gone@example.com"]);
    await confirmations.close();
    await store.close();
  });

  it("keeps one e-mail a day for a mailbox's own address that its other spellings cannot spend (issue 43)", async () => {
    const store = new SqliteStore(":memory:");
    const { mailer, sent } = recordingMailer(() => undefined);
    const confirmations = createConfirmations({ ...testSite, store, mailer, linkSecret, log: () => {} });
    // A stranger signs up four spellings of dos@'s mailbox first: two are mailed, the third of the day's three e-mails
    // is set apart for dos@ itself (issue 52: out of the cap, not on top of it).
    for (const email of ["dos+1@example.com", "dos+2@example.com", "dos+3@example.com", "dos+4@example.com"]) {
      await store.add({ email, emailKey: email, source: "start" });
    }
    await expect(confirmations.sweep()).resolves.toEqual({ sent: 2, retrying: 0, refused: 2, held: 0, more: false });
    // Its owner signs up: mailed all the same.
    await store.add({ email: "dos@example.com", emailKey: "dos@example.com", source: "start" });
    await expect(confirmations.sweep()).resolves.toEqual({ sent: 1, retrying: 0, refused: 0, held: 0, more: false });
    expect(sent).toContain("dos@example.com");
    await confirmations.close();
    await store.close();
  });

  it("never mails one mailbox more than its cap, its own address included, with a cap of one too (issue 52)", async () => {
    for (const [cap, spellings] of [
      [3, ["a.da@gmail.com", "ada+1@gmail.com", "ADA@googlemail.com", "ada@gmail.com", "ad.a+2@gmail.com"]],
      [1, ["ada+1@gmail.com", "ada@gmail.com"]],
    ] as const) {
      const store = new SqliteStore(":memory:");
      const { mailer, sent } = recordingMailer(() => undefined);
      const confirmations = createConfirmations({
        ...testSite,
        store,
        mailer,
        linkSecret,
        mailboxDailyMails: cap,
        log: () => {},
      });
      for (const email of spellings) {
        await store.add({ email, emailKey: email.toLowerCase(), source: "start" });
        await confirmations.sweep();
      }
      expect(sent).toHaveLength(cap);
      await confirmations.close();
      await store.close();
    }
  });
});

describe("a scheduled run's sending (sendDue, Netlify's sweeps)", () => {
  it("reads the next batch while the last is sent, and starts no attempt past its time", async () => {
    const { store } = await storeWith(250);
    const reads = jest.spyOn(store, "dueConfirmations");
    const { mailer, held } = heldMailer();
    let now = Date.parse("2027-03-01T18:00:00Z");
    const clock = () => new Date(now);
    const confirmations = createConfirmations({
      ...testSite,
      store,
      mailer,
      linkSecret,
      pace: paceOver(store, { connections: 20 }),
      clock,
      log: () => {},
    });
    const run = confirmations.sendDue(now + 1_000);
    while (held.length < 20) await tick();
    for (let i = 0; i < 10; i++) await tick();
    // 20 in flight, none sent yet, and a second batch already read behind the first.
    expect(reads).toHaveBeenCalledTimes(2);
    now += 2_000;
    for (const release of held.splice(0)) release();
    for (let i = 0; i < 10; i++) await tick();
    expect(held).toHaveLength(0);
    // Its time over with 230 still owed: more, for a sender with time (a drain on Netlify).
    expect(await run).toEqual({ sent: 20, retrying: 0, refused: 0, held: 0, more: true });
    expect(await store.pendingConfirmations()).toHaveLength(230);
    await store.close();
  });

  it("holds every sender once five recipients in a row were deferred: the mail server is down", async () => {
    const { store } = await storeWith(400);
    const down = Object.assign(new Error("451 4.3.0 Try again later"), { responseCode: 451, command: "RCPT TO" });
    const { mailer, sent } = recordingMailer(() => down);
    const pace = paceOver(store, { connections: 1 });
    const confirmations = createConfirmations({ ...testSite, store, mailer, linkSecret, pace, log: () => {} });
    const result = await confirmations.sendDue(Date.now() + 60_000);
    expect(sent).toEqual([]);
    // Five tried and deferred, each on its own schedule; then the pace holds everyone: those under way (the batch, and
    // the few read behind it) are given back untried, no attempt counted, and the sweep reads no more.
    expect(result).toMatchObject({ sent: 0, retrying: 5, refused: 0, more: false });
    expect(result.held).toBeGreaterThanOrEqual(95);
    expect(result.held).toBeLessThan(150);
    expect((await store.all()).filter((row) => row.confirmationAttempts > 0)).toHaveLength(5);
    const [shard] = await pace.shards();
    expect(shard!.hold).toMatchObject({ reason: "down", count: 1 });
    expect(shard!.hold!.until).toBeGreaterThan(Date.now() + 50_000);
    await store.close();
  });
});

describe("what a provider's refusal means (replies.ts), for the one pace", () => {
  const reply = (code: number, text: string, command = "DATA") =>
    Object.assign(new Error(`${code} ${text}`), { responseCode: code, response: `${code} ${text}`, command });

  it("gives a throttled message back due at once, the pace holding every sender a moment: the next sender waits it out and sends it, never an hour on", async () => {
    const { store, owed } = await storeWith(1);
    let now = Date.parse("2026-12-01T10:00:00Z");
    let throttles = 1;
    // SES answers over its rate after DATA, and drops the message: it must be sent again.
    const { mailer, sent } = recordingMailer(() =>
      throttles-- > 0 ? reply(454, "Throttling failure: Maximum sending rate exceeded.") : undefined,
    );
    const pace = createMailPace({
      store,
      limits: { ratePerSecond: 14, connections: 10, dailyLimit: null },
      clock: () => now,
    });
    const confirmations = createConfirmations({
      ...testSite,
      store,
      mailer,
      linkSecret,
      pace,
      clock: () => new Date(now),
      wait: async (ms) => void (now += ms),
      // One e-mail a mailbox a day: the throttled message, sent again, is the same e-mail, not a second.
      mailboxDailyMails: 1,
      log: () => {},
    });
    await confirmations.sendSoon(owed[0]!);
    const [row] = await store.all();
    // Its attempt counted (it reached the provider, and its mailbox's day was counted), its next due at once.
    expect(row).toMatchObject({
      state: "owed",
      confirmationAttempts: 1,
      confirmationError: expect.stringMatching(/454 Throttling/) as unknown,
    });
    // Due again at once, the pace holding every sender for the moment: the next sender waits the 2 s out, then sends.
    expect(await store.dueConfirmations(new Date(now), 10)).toHaveLength(1);
    const from = now;
    await expect(confirmations.sendDue(now + 10_000)).resolves.toEqual({
      sent: 1,
      retrying: 0,
      refused: 0,
      held: 1,
      more: false,
    });
    expect(now - from).toBeGreaterThanOrEqual(2_000);
    expect(sent).toEqual([owed[0]!.email]);
    await store.close();
  });

  it("refuses nobody at a daily quota, even one said to a RCPT TO, and holds every sender for the quota's window", async () => {
    const { store, owed } = await storeWith(3);
    const now = Date.parse("2026-12-01T10:00:00Z");
    // Google's relay refuses the recipient when the *sender's* day is used up: not this address's fault.
    const { mailer, sent } = recordingMailer(() =>
      reply(
        550,
        "5.7.1 Daily SMTP relay limit exceeded for customer. To learn more visit https://support.google.com",
        "RCPT TO",
      ),
    );
    const lines: string[] = [];
    const pace = createMailPace({
      store,
      limits: { ratePerSecond: 14, connections: 1, dailyLimit: null },
      clock: () => now,
      log: (line) => lines.push(line),
    });
    const confirmations = createConfirmations({
      ...testSite,
      store,
      mailer,
      linkSecret,
      pace,
      clock: () => new Date(now),
      log: () => {},
    });
    const result = await confirmations.resendPending();
    expect(sent).toEqual([]);
    expect(result).toMatchObject({
      sent: 0,
      refused: [],
      stopped: { until: new Date(now + 86_400_000).toISOString() },
    });
    expect(result.pending.map((one) => one.email)).toEqual(owed.map((one) => one.email));
    expect((await store.all()).map((row) => row.state)).toEqual(["owed", "owed", "owed"]);
    expect(lines).toEqual([expect.stringMatching(/daily quota is used: nothing is sent until/)]);
    await store.close();
  });
});

describe("a refusal for good of the recipient (issue 65)", () => {
  it("holds the address as a bounce would: a new signup of it after the refused one's days is not mailed", async () => {
    const { store, owed } = await storeWith(1);
    const unknownUser = Object.assign(
      new Error("550 5.1.1 <c0@example.com>: Recipient address rejected: User unknown"),
      {
        command: "RCPT TO",
        responseCode: 550,
      },
    );
    const { mailer, sent } = recordingMailer(() => unknownUser);
    const confirmations = createConfirmations({ store, mailer, linkSecret, ...testSite, log: () => {} });
    await confirmations.sendSoon(owed[0]!);
    await confirmations.close();
    expect((await store.signup("c0@example.com"))?.state).toBe("refused");
    // Gone (its 30 days over, or it left), then signed up anew: the sender asks the suppressions, and mails nothing.
    await store.remove("c0@example.com", "link", new Date());
    const { createdAt } = await store.add({ email: "c0@example.com", emailKey: "c0@example.com", source: "start" });
    const later = recordingMailer(() => undefined);
    const again = createConfirmations({
      store,
      mailer: later.mailer,
      linkSecret,
      ...testSite,
      log: () => {},
    });
    await again.sendSoon({ email: "c0@example.com", emailKey: "c0@example.com", createdAt, askedSince: createdAt });
    await again.close();
    const record = await store.signup("c0@example.com");
    expect(record?.state).toBe("refused");
    expect(record?.confirmationError).toMatch(
      /^not sent: mail to this (mailbox|address) bounced or was marked as spam/,
    );
    expect(sent).toEqual([]);
    expect(later.sent).toEqual([]);
    await store.close();
  });
});
