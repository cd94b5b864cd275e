import fs, { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { run, UsageError } from "./run";
import { PendingError } from "./errors";
import { noAttribution } from "../waitlist/attribution";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import { verifyLeaveToken } from "../waitlist/tokens";
import { suppressionFingerprint } from "../waitlist/suppressions";
import { runWaitlist, spawnWaitlist } from "../test/support/process";
import { leaveLinks, startSmtpServer, type TestSmtpServer } from "../test/support/smtp";
import { until } from "../test/support/until";
import { startPolicySite, type PolicySite } from "../test/support/policy-site";

/*
 * npm run waitlist -- let-in: launch in waves (issue 51), against the SQLite store and a real SMTP server. The rules
 * of a record's wave are signup-life's (its test); every store keeps them (the store contract); here, the command:
 * whom a wave chooses and in what order, its e-mail, and a run stopped half-way.
 */

/** The launch mail tool the site's Privacy Policy names, as a test's site serves it (forTool()). */
const tool = "Intuit Inc. (Mailchimp, United States)";
let policySite: PolicySite;
beforeAll(async () => {
  policySite = await startPolicySite();
});
afterAll(() => policySite.stop());

let dir: string;
let env: NodeJS.ProcessEnv;
let smtp: TestSmtpServer;
/** Recipients the mail server defers (451) for now. */
let deferred: Set<string>;
/** Whether the mail server refuses the sender, as a provider does one it has not verified. */
let senderRefused: boolean;
/** Recipients whose message the server keeps and then drops the connection before it answers. */
let dropped: Set<string>;
beforeEach(async () => {
  dropped = new Set();
  dir = mkdtempSync(path.join(os.tmpdir(), "cli-let-in-"));
  deferred = new Set();
  senderRefused = false;
  smtp = await startSmtpServer(0, {
    refuseSender: () => (senderRefused ? { code: 554, text: "5.7.1 Sender address not verified" } : undefined),
    refuseRecipient: (address) => address.startsWith("gone@"),
    deferRecipient: (address) => deferred.has(address),
    dropAfterData: ({ to }) => to.some((address) => dropped.has(address)),
  });
  env = {
    WAITLIST_DB: path.join(dir, "waitlist.db"),
    SMTP_URL: smtp.url,
    LAUNCH_URL: "https://app.jointandem.app/start",
    CONTROLLER_NAME: "Tandem Labs GmbH",
    CONTROLLER_ADDRESS: "Example Street 1, 10115 Berlin, Germany",
  };
  policySite.names(tool);
});
afterEach(async () => {
  await smtp.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A founders' shell (env by default) whose SITE_URL is the site whose Privacy Policy names the tool. */
const forTool = (shell: NodeJS.ProcessEnv = env) => ({ ...shell, SITE_URL: policySite.url });

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 9, minute));

/**
 * Six confirmed, oldest first: ada, bob, cleo (whose link dee and eve came by), dee, eve, fay; and gus, who never
 * confirmed. Each in its own mailbox.
 */
async function seed(extra: string[] = []) {
  const store = new SqliteStore(env.WAITLIST_DB!);
  const confirm = async (email: string, minute: number, invitedBy?: string) => {
    await store.add({ email, emailKey: email, source: "start", at: at(minute), mailboxDigest: email, invitedBy });
    return (await store.confirm(email, { createdAt: at(minute).toISOString(), at: at(minute), privacyPolicy: null }))!
      .inviteCode;
  };
  await confirm("ada@example.com", 1);
  await confirm("bob@example.com", 2);
  const cleo = await confirm("cleo@example.com", 3);
  await confirm("dee@example.com", 4, cleo);
  await confirm("eve@example.com", 5, cleo);
  await confirm("fay@example.com", 6);
  for (const [n, email] of extra.entries()) await confirm(email, 7 + n);
  await store.add({ email: "gus@example.com", emailKey: "gus@example.com", source: "start", at: at(30) });
  await store.close();
}

/** Every record in the store, as the commands read it. */
async function stored() {
  const store = SqliteStore.openExisting(env.WAITLIST_DB!);
  const rows = await store.all();
  await store.close();
  return rows;
}

/** Who is in which wave, and their mail's state, as the founders' record has it. */
async function waves() {
  const store = SqliteStore.openExisting(env.WAITLIST_DB!);
  const rows = await store.all();
  await store.close();
  return Object.fromEntries(
    rows.map((row) => [row.email.split("@")[0]!, [row.wave, row.letInMail] as [number | null, string | null]]),
  );
}

const recipients = () => smtp.deliveries.map((delivery) => delivery.envelope.to.join());

describe("let-in: a wave at a time", () => {
  it("lets in by invites the inviter first, then by signup; a second wave the next, nobody twice", async () => {
    await seed();
    await expect(run(["let-in", "--count", "2", "--order", "invites"], env)).resolves.toBe(
      `Wave 1: let in 2 people, by invites. Sent "You're in" to 2 of them (via ${smtp.url}).`,
    );
    await smtp.waitFor(2);
    expect(recipients().sort()).toEqual(["ada@example.com", "cleo@example.com"]);
    await expect(run(["let-in", "--count", "2", "--order", "invites"], env)).resolves.toMatch(/^Wave 2: let in 2/);
    await smtp.waitFor(4);
    expect(recipients().slice(2).sort()).toEqual(["bob@example.com", "dee@example.com"]);
    // The order of signup by default; the unconfirmed never.
    await expect(run(["let-in", "--count", "5"], env)).resolves.toMatch(/^Wave 3: let in 2 people, in the order/);
    await expect(run(["let-in", "--count", "5"], env)).resolves.toBe(
      "Nobody to let in: every confirmed signup is in a wave already (or none has confirmed).",
    );
    await smtp.waitFor(6);
    expect(new Set(recipients()).size).toBe(6);
    expect(await waves()).toEqual({
      ada: [1, "sent"],
      cleo: [1, "sent"],
      bob: [2, "sent"],
      dee: [2, "sent"],
      eve: [3, "sent"],
      fay: [3, "sent"],
      gus: [null, null],
    });
    // stats counts the waves.
    const stats = JSON.parse(await run(["stats", "--json"], env)) as { waves: unknown };
    expect(stats.waves).toEqual([
      expect.objectContaining({ wave: 1, people: 2, mailOwed: 0 }),
      expect.objectContaining({ wave: 2, people: 2, mailOwed: 0 }),
      expect.objectContaining({ wave: 3, people: 2, mailOwed: 0 }),
    ]);
  });

  it("ranks nobody by invites who objected to it: they count as bringing none, and a wave by signup is as before", async () => {
    await seed();
    await expect(run(["object-to-ranking", "CLEO@example.com"], env)).resolves.toBe(
      "Noted: CLEO@example.com objected to the ranking by invites. From now on they are not ranked by the creators they invited: a wave by invites counts none for them (a wave by signup is as before), and the founders' figures name them among no top inviters.",
    );
    await expect(run(["object-to-ranking", "cleo@example.com"], env)).resolves.toMatch(/^Noted \(noted before, on /);
    await expect(run(["object-to-ranking", "nobody@example.com"], env)).resolves.toBe(
      "nobody@example.com is not on the waitlist; nothing noted.",
    );
    await expect(run(["let-in", "--count", "3", "--order", "invites", "--dry-run"], env)).resolves.toBe(
      [
        `Would let in 3 people as wave 1, by invites, each e-mailed "You're in":`,
        "  1. ada@example.com (signed up 2026-11-20, 0 confirmed invites)",
        "  2. bob@example.com (signed up 2026-11-20, 0 confirmed invites)",
        "  3. cleo@example.com (signed up 2026-11-20, 0 confirmed invites)",
        'Each gets "You\'re in: early access to Tandem is open for you", its button to https://app.jointandem.app/start, their own leave link and Tandem Labs GmbH, Example Street 1, 10115 Berlin, Germany.',
      ].join("\n"),
    );
    const record = JSON.parse(await run(["export", "--record", "--format", "json", "--wave", "1"], env)) as unknown[];
    expect(record).toEqual([]);
    const everyone = JSON.parse(await run(["export", "--record", "--format", "json"], env)) as Record<
      string,
      unknown
    >[];
    expect(everyone.find((row) => row.email === "cleo@example.com")!.rankingObjectedAt).toMatch(/^\d{4}-/);
    // The founders' record by invites ranks them as a wave does; it still shows the count itself.
    const ranked = JSON.parse(
      await run(["export", "--record", "--format", "json", "--order", "invites"], env),
    ) as Record<string, unknown>[];
    expect(ranked[0]).toMatchObject({ email: "ada@example.com" });
    expect(ranked.find((row) => row.email === "cleo@example.com")).toMatchObject({ confirmedInvites: 2 });
  });

  it("carries out each objection: the campaign tag and the invite code go, the inviter's count falls; records are kept", async () => {
    await seed();
    const store = new SqliteStore(env.WAITLIST_DB!);
    await store.add({
      email: "tag@example.com",
      emailKey: "tag@example.com",
      source: "start",
      at: at(40),
      attribution: { ...noAttribution, utmSource: "tiktok", landingPath: "/" },
    });
    await store.close();
    const row = async (email: string) =>
      (JSON.parse(await run(["export", "--record", "--format", "json"], env)) as Record<string, unknown>[]).find(
        (one) => one.email === email,
      )!;
    expect(await row("tag@example.com")).toMatchObject({ utmSource: "tiktok", landingPath: "/" });
    await expect(run(["object", "tag@example.com", "--to", "attribution"], env)).resolves.toMatch(
      /^Noted: tag@example\.com objected to the attribution\. From now on their page and campaign tag are deleted/,
    );
    expect(await row("tag@example.com")).toMatchObject({
      utmSource: null,
      landingPath: null,
      attributionObjectedAt: expect.any(String),
    });
    // dee came by cleo's link: once dee objects, cleo brought one confirmed creator, not two.
    await expect(run(["object", "dee@example.com", "--to", "invite"], env)).resolves.toMatch(
      /^Noted: dee@example\.com/,
    );
    expect(await row("dee@example.com")).toMatchObject({ invitedBy: null, inviteObjectedAt: expect.any(String) });
    const ranked = JSON.parse(
      await run(["export", "--record", "--format", "json", "--order", "invites"], env),
    ) as Record<string, unknown>[];
    expect(ranked.find((one) => one.email === "cleo@example.com")).toMatchObject({ confirmedInvites: 1 });
    // An objection to the records changes none of them, and says what to answer.
    const before = await row("ada@example.com");
    await expect(run(["object", "ada@example.com", "--to", "records"], env)).resolves.toMatch(
      /the record of their consent .* is kept, because it is our proof/,
    );
    const after = await row("ada@example.com");
    expect({ ...after, recordsObjectedAt: null }).toEqual({ ...before, recordsObjectedAt: null });
    expect(after.recordsObjectedAt).toEqual(expect.any(String));
    // What is not an objection is refused, with what is.
    await expect(run(["object", "ada@example.com", "--to", "everything"], env)).rejects.toThrow(
      new UsageError(
        'Say what the person objects to: --to attribution, --to invite, --to ranking, --to records (not "everything").',
      ),
    );
    await expect(run(["object", "nobody@example.com", "--to", "invite"], env)).resolves.toBe(
      "nobody@example.com is not on the waitlist; nothing noted.",
    );
  });

  it("lets no restricted person in, nor counts their invites, until the restriction is lifted", async () => {
    await seed();
    await expect(run(["restrict", "ada@example.com"], env)).resolves.toMatch(
      /^ada@example\.com's entry is restricted since \d{4}-.*: kept, and used for nothing else/,
    );
    // eve came by cleo's link: while eve is restricted, cleo brought one, and ties with nobody above ada's place.
    await run(["restrict", "eve@example.com"], env);
    await expect(run(["let-in", "--count", "2"], env)).resolves.toBe(
      [
        `Wave 1: let in 2 people, in the order of signup. Sent "You're in" to 2 of them (via ${smtp.url}).`,
        "Skipped 2 confirmed people whose entry is restricted.",
      ].join("\n"),
    );
    await smtp.waitFor(2);
    expect(recipients().sort()).toEqual(["bob@example.com", "cleo@example.com"]);
    const ranked = JSON.parse(
      await run(["export", "--record", "--format", "json", "--order", "invites"], env),
    ) as Record<string, unknown>[];
    expect(ranked.find((one) => one.email === "cleo@example.com")).toMatchObject({ confirmedInvites: 1 });
    await expect(run(["restrict", "ada@example.com", "--lift"], env)).resolves.toBe(
      "ada@example.com's entry is used again as any other: its e-mail, its wave, the retention and the figures.",
    );
    await expect(run(["restrict", "ada@example.com", "--lift"], env)).resolves.toMatch(/^ada@example\.com/);
    await run(["let-in", "--count", "1"], env);
    await smtp.waitFor(3);
    expect(recipients()[2]).toBe("ada@example.com");
    expect(await waves()).toMatchObject({ ada: [2, "sent"], eve: [null, null] });
  });

  it("mails each the way in, their own leave link and the sender's postal address", async () => {
    await seed();
    await run(["let-in", "--count", "1"], env);
    const { mail } = (await smtp.waitFor(1))[0]!;
    expect(mail.subject).toBe("You're in: early access to Tandem is open for you");
    expect(mail.text).toContain(
      "early access is open for you now (wave 1). Start here:\nhttps://app.jointandem.app/start\n",
    );
    expect(mail.text).toContain("Tandem Labs GmbH, Example Street 1, 10115 Berlin, Germany");
    expect(String(mail.html)).toMatch(/<a href="https:\/\/app\.jointandem\.app\/start"[^>]*>Open Tandem<\/a>/);
    const links = leaveLinks(mail);
    expect(links.text).not.toBe("");
    expect([links.html, links.header]).toEqual([links.text, links.text]);
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const secret = await store.secret("leave", () => "never made here");
    await store.close();
    expect(verifyLeaveToken(new URL(links.text).searchParams.get("token"), secret)).toEqual({
      email: "ada@example.com",
      key: "ada@example.com",
      createdAt: at(1).toISOString(),
    });
  });

  it("leaves out whoever left; one who left and joins again starts over, in a later wave", async () => {
    await seed();
    await run(["let-in", "--count", "1"], env);
    await run(["remove", "ada@example.com"], env);
    await run(["remove", "bob@example.com"], env);
    await expect(run(["let-in", "--count", "1"], env)).resolves.toMatch(/^Wave 2: let in 1 person/);
    // Ada joins again and confirms: in no wave, and after everyone who waited longer.
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const again = new Date(Date.UTC(2026, 10, 21));
    await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start", at: again });
    await store.confirm("ada@example.com", { createdAt: again.toISOString(), at: again, privacyPolicy: null });
    await store.close();
    expect((await waves()).ada).toEqual([null, null]);
    await run(["let-in", "--count", "10"], env);
    await smtp.waitFor(6);
    expect(await waves()).toMatchObject({ ada: [3, "sent"], cleo: [2, "sent"], dee: [3, "sent"] });
    expect(await waves()).not.toHaveProperty("bob");
    expect(recipients().filter((to) => to === "bob@example.com")).toEqual([]);
    expect(recipients().filter((to) => to === "ada@example.com")).toHaveLength(2);
  });

  it("finishes a wave the mail server held back in the next run, which starts no new wave; nobody mailed twice", async () => {
    await seed(["gone@example.com"]);
    deferred.add("cleo@example.com");
    const first = run(["let-in", "--count", "4"], env);
    await expect(first).rejects.toThrow(PendingError);
    await expect(first).rejects.toThrow(
      /^Wave 1: let in 4 people, in the order of signup\. Sent "You're in" to 3 of them \(via smtp:\/\/127\.0\.0\.1:\d+\)\.\nNot sent, the mail server said: 1 e-mail of the wave still owed; run let-in again to send them \(nobody is mailed twice\)\.\n {2}c\S+@example\.com: [^\n]*451 /,
    );
    expect((await waves()).cleo).toEqual([1, "owed"]);
    deferred.clear();
    await expect(run(["let-in", "--count", "4"], env)).resolves.toBe(
      [
        "Wave 1 was stopped half-way: 1 e-mail still owed.",
        `Sent 1 of them (via ${smtp.url}). No new wave was started: run let-in again for the next.`,
      ].join("\n"),
    );
    await smtp.waitFor(4);
    expect(recipients().sort()).toEqual(["ada", "bob", "cleo", "dee"].map((name) => `${name}@example.com`));
    // The next wave holds one the mail server refuses for good: refused, never tried again, and no wave waits on it.
    await expect(run(["let-in", "--count", "3"], env)).resolves.toMatch(
      /^Wave 2: let in 3 people[^\n]*Sent "You're in" to 2 of them[^\n]*\nRefused for good by the mail server \(not tried again\):\n {2}g\S+@example\.com: [^\n]*550 /,
    );
    expect((await waves()).gone).toEqual([2, "refused"]);
    await expect(run(["let-in", "--count", "3"], env)).resolves.toMatch(/^Nobody to let in/);
    // Eight e-mails at a small provider's pace, and a deferral held: about 5 s on an idle machine.
  }, 30_000);

  it("skips the undeliverable and the mailboxes held after a bounce or a complaint, says how many, and fills the wave with the rest", async () => {
    const secret = "a-secret-of-at-least-32-characters";
    env.WAITLIST_SECRET = secret;
    await seed(["hal@example.com", "ivy+news@example.com"]);
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    // Hal's mail bounced for good; Ivy's mailbox complained of our mail under another spelling, and is held.
    await store.markBounced("hal@example.com", "bounced for good: 550 5.1.1", new Date());
    await store.suppress(
      suppressionFingerprint(secret, "ivy@example.com"),
      new Date(Date.now() + 86_400_000),
      "complaint",
    );
    await store.close();
    const skipped =
      "Skipped 2 confirmed people the mail cannot reach: 1 whose mail bounced for good, 1 whose mailbox is held after a bounce or a spam complaint.";
    // A dry run leaves them out as the wave would, and says so (issue 65: it ignored the suppressions).
    const dry = await run(["let-in", "--count", "7", "--dry-run"], env);
    expect(dry).toMatch(/^Would let in 6 people as wave 1/);
    expect(dry).toContain(skipped);
    await expect(run(["let-in", "--count", "7"], env)).resolves.toBe(
      [
        `Wave 1: let in 6 people, in the order of signup. Sent "You're in" to 6 of them (via ${smtp.url}).`,
        skipped,
      ].join("\n"),
    );
    await smtp.waitFor(6);
    expect(recipients()).not.toContain("hal@example.com");
    expect(recipients()).not.toContain("ivy+news@example.com");
    expect((await waves()).hal).toEqual([null, null]);
    await expect(run(["let-in", "--count", "1"], env)).resolves.toBe(
      ["Nobody to let in: every confirmed signup is in a wave already (or none has confirmed).", skipped].join("\n"),
    );
  });

  it("finishes a wave stopped half-way without whoever the mail can no longer reach, and says so", async () => {
    const secret = "a-secret-of-at-least-32-characters";
    env.WAITLIST_SECRET = secret;
    await seed();
    deferred.add("bob@example.com");
    await expect(run(["let-in", "--count", "2"], env)).rejects.toThrow(PendingError);
    deferred.clear();
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    await store.suppress(
      suppressionFingerprint(secret, "bob@example.com"),
      new Date(Date.now() + 86_400_000),
      "bounce",
    );
    await store.close();
    await expect(run(["let-in", "--count", "2"], env)).resolves.toBe(
      [
        "Wave 1 was stopped half-way: 1 e-mail still owed.",
        `Sent 0 of them (via ${smtp.url}). No new wave was started: run let-in again for the next.`,
        "1 person the mail can no longer reach (bounced for good, or held after a bounce or a spam complaint): not sent.",
      ].join("\n"),
    );
    expect((await waves()).bob).toEqual([1, "refused"]);
    expect(recipients()).toEqual(["ada@example.com"]);
  });

  it("refuses --launch-tool while a wave's e-mails are still owed: they are sent by mail, with LAUNCH_URL, first", async () => {
    await seed();
    deferred.add("bob@example.com");
    await expect(run(["let-in", "--count", "2"], env)).rejects.toThrow(PendingError);
    deferred.clear();
    // The founder turns to the launch tool, with a shell that has no LAUNCH_URL or postal address.
    const out = path.join(dir, "wave.csv");
    const { LAUNCH_URL: _url, CONTROLLER_ADDRESS: _address, ...toolShell } = env;
    const args = ["let-in", "--count", "2", "--launch-tool", "--format", "csv", "--out", out];
    const refusal =
      "Wave 1 was stopped half-way: 1 e-mail still owed. Run let-in --count 2 without --launch-tool (and with LAUNCH_URL) to send them first; nobody is mailed twice. A new wave starts after.";
    for (const extra of [[], ["--dry-run"]]) {
      await expect(run([...args, ...extra], forTool(toolShell))).rejects.toThrow(new UsageError(refusal));
    }
    expect(recipients()).toEqual(["ada@example.com"]);
    expect(readdirSync(dir)).toEqual(["waitlist.db"]);
    expect(await waves()).toMatchObject({ ada: [1, "sent"], bob: [1, "owed"], cleo: [null, null] });
  });

  it("stops at the first e-mail when the server refuses the sender, refusing nobody for good, and goes on once put right", async () => {
    await seed();
    senderRefused = true;
    const first = run(["let-in", "--count", "6", "--per-second", "100"], { ...env, MAIL_CONNECTIONS: "1" });
    await expect(first).rejects.toThrow(
      /^Wave 1: let in 6 people, in the order of signup\. Sent "You're in" to 0 of them \(via [^)]+\)\.\nStopped, as the mail server refused the sending \([^\n]*554 5\.7\.1 Sender address not verified\): 6 e-mails of the wave still owed; put it right, then run let-in again/,
    );
    // Nobody refused for good, nobody taken: all owed, the same wave.
    expect(Object.values(await waves()).filter(([wave]) => wave === 1)).toEqual(Array(6).fill([1, "owed"]));
    senderRefused = false;
    await expect(run(["let-in", "--count", "6"], env)).resolves.toMatch(/^Wave 1 was stopped half-way: 6 e-mails/);
    await smtp.waitFor(6);
    expect(new Set(recipients()).size).toBe(6);
  });

  it("stops at Ctrl-C once the e-mails under way are sent, and the next run sends the rest, nobody twice", async () => {
    await seed(["g@example.com", "h@example.com", "i@example.com", "j@example.com"]);
    const args = ["let-in", "--count", "10", "--per-second", "1"];
    const child = spawnWaitlist(args, { ...env, MAIL_CONNECTIONS: "1" });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await until(() => smtp.deliveries.length >= 1, 20_000);
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.once("exit", (exit) => resolve(exit)));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^Wave 1: let in 10 people[^\n]*\nStopped: \d+ e-mails? of the wave still owed; run let-in again/,
    );
    const sentBefore = recipients().length;
    expect(sentBefore).toBeLessThan(10);
    const resumed = await runWaitlist(["let-in", "--count", "10", "--per-second", "100"], {
      ...env,
      MAIL_CONNECTIONS: "4",
      LAUNCH_URL: env.LAUNCH_URL!,
    });
    expect(resumed).toMatchObject({ code: 0 });
    expect(resumed.stdout).toMatch(
      new RegExp(`^Wave 1 was stopped half-way: ${10 - sentBefore} e-mails? still owed\\.`),
    );
    await smtp.waitFor(10);
    expect(new Set(recipients()).size).toBe(10);
    expect(recipients()).toHaveLength(10);
  }, 60_000);

  it("sends at the pace asked, over every connection together: 5 at 2 a second take two seconds or more", async () => {
    await seed();
    const started = Date.now();
    await run(["let-in", "--count", "5", "--per-second", "2"], { ...env, MAIL_CONNECTIONS: "5" });
    const times = (await smtp.waitFor(5)).map((delivery) => delivery.at).sort((a, b) => a - b);
    // A lower bound only: a loaded machine may be slower, never faster. Two a second: 2, then 2, then 1.
    expect(times[4]! - started).toBeGreaterThanOrEqual(2000);
    expect(times[2]! - started).toBeGreaterThanOrEqual(1000);
  });

  it("leaves one whose e-mail was under way when the run died unsure, never mailed again, and says so", async () => {
    await seed();
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    // A run let Ada in and took her e-mail, then died before it was sent or not.
    await store.once("wave-1");
    await store.letIn("ada@example.com", { wave: 1, at: new Date(), createdAt: at(1).toISOString(), mail: true });
    await store.letInMail("ada@example.com", "take", 1);
    await store.close();
    await expect(run(["let-in", "--count", "1"], env)).resolves.toBe(
      [
        `Wave 2: let in 1 person, in the order of signup. Sent "You're in" to 1 of them (via ${smtp.url}).`,
        '1 person of an earlier wave was being mailed when a run stopped: it may have gone, so it is not sent again (export --record --format json shows them, with let_in_mail "sending").',
      ].join("\n"),
    );
    expect(recipients()).toEqual(["bob@example.com"]);
  });

  it("never mails twice one whose e-mail may have gone: the connection dropped after the server had it (issue 65)", async () => {
    await seed();
    dropped.add("bob@example.com");
    const failure = await run(["let-in", "--count", "2"], env);
    expect(failure).toBe(
      [
        `Wave 1: let in 2 people, in the order of signup. Sent "You're in" to 1 of them (via ${smtp.url}).`,
        "1 person's e-mail may have gone: the connection dropped as it was sent, so it is not sent again rather than maybe twice.",
      ].join("\n"),
    );
    expect((await waves()).bob).toEqual([1, "sending"]);
    // The next run sends Bob nothing: he is unsure, not owed, and said so; it lets the next wave in.
    dropped.clear();
    const next = await run(["let-in", "--count", "1"], env);
    expect(next).toMatch(
      /^Wave 2: let in 1 person.*\n1 person of an earlier wave was being mailed when a run stopped/s,
    );
    expect(smtp.deliveries.filter((delivery) => delivery.envelope.to.includes("bob@example.com"))).toHaveLength(1);
  });

  it("hands a wave to the launch tool instead, only once the Privacy Policy the site serves names it, and export --launch --wave writes it again (issue 61)", async () => {
    await seed();
    const out = path.join(dir, "wave.csv");
    const args = ["let-in", "--count", "2", "--order", "invites", "--launch-tool", "--format", "csv", "--out", out];
    const records = await stored();
    const asked = policySite.requests();
    // The site is asked before anything is read or written, whatever a LAUNCH_MAIL_TOOL left in the shell says.
    for (const [names, refusal] of [
      [undefined, / names no launch mail tool, and the list goes to none before the policy names it: /],
      [[tool, "Brevo SAS (France)"], / names more than one launch mail tool \(/],
      [null, / could not be read \(it answered 404\), /],
    ] as const) {
      policySite.names(names);
      const refused = await run(args, { ...forTool(), LAUNCH_MAIL_TOOL: tool }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toMatch(refusal);
      expect((refused as Error).message).toMatch(/nothing was written\.$/);
    }
    expect(policySite.requests() - asked).toBe(3);
    expect(readdirSync(dir)).toEqual(["waitlist.db"]);
    // Nothing written: nobody let in, and not even the links' secret made (the one made here is the first).
    expect(await stored()).toEqual(records);
    expect(Object.values(await waves()).every(([wave]) => wave === null)).toBe(true);
    const first = "made first by this test".padEnd(48, ".");
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    await expect(store.secret("leave", () => first)).resolves.toBe(first);
    await store.close();
    policySite.names(tool);
    const said = await run(args, forTool());
    expect(said).toMatch(
      new RegExp(
        `^Wave 1: let in 2 people, by invites, for Intuit Inc\\. \\(Mailchimp, United States\\) to mail\\.\\nWrote ${out}`,
      ),
    );
    // When the tool must have it deleted by, and from when stats says so (issue 61).
    const remindedFrom = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(said.split("\n")[2]).toBe(
      `Delete wave 1 from ${tool} within 30 days of its e-mail, as the Privacy Policy promises: once its bounces and unsubscribes are home (remove-unsubscribed) and those who left since are off it (leavers). stats reminds you from ${remindedFrom}.`,
    );
    const rows = parse(readFileSync(out, "utf8"), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((row) => Object.keys(row))).toEqual([
      ["email", "leave_url", "wave"],
      ["email", "leave_url", "wave"],
    ]);
    expect(rows.map((row) => [row.email, row.wave])).toEqual([
      ["ada@example.com", "1"],
      ["cleo@example.com", "1"],
    ]);
    // Links to the site whose policy named the tool.
    for (const row of rows) expect(row.leave_url).toMatch(new RegExp(`^${policySite.url}/waitlist/leave\\?token=`));
    expect(smtp.deliveries).toEqual([]);
    expect(await waves()).toMatchObject({ ada: [1, "launch-tool"], cleo: [1, "launch-tool"], bob: [null, null] });
    const again = path.join(dir, "again.json");
    await run(["export", "--launch", "--wave", "1", "--format", "json", "--out", again], forTool());
    // The same people and wave (each link sealed anew, so another token for the same leave).
    expect(JSON.parse(readFileSync(again, "utf8"))).toEqual(
      rows.map((row) => ({ email: row.email, leaveUrl: expect.stringMatching(/\/waitlist\/leave\?token=/), wave: 1 })),
    );
    // The record by wave, and of those in none yet.
    const record = (...extra: string[]) => run(["export", "--record", "--format", "json", ...extra], env);
    const emails = (json: string) => (JSON.parse(json) as { email: string }[]).map((row) => row.email);
    expect(emails(await record("--wave", "1"))).toEqual(["ada@example.com", "cleo@example.com"]);
    expect(emails(await record("--not-let-in"))).toEqual(
      ["bob", "dee", "eve", "fay", "gus"].map((name) => `${name}@example.com`),
    );
    expect(JSON.parse(await record("--wave", "1"))[0]).toMatchObject({
      wave: 1,
      letInAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      letInMail: "launch-tool",
    });
  });

  it("says a wave let in for the tool whose file could not be written, and how to write it, without a new wave", async () => {
    await seed();
    const shell = forTool();
    const out = path.join(dir, "wave.csv");
    const rename = jest.spyOn(fs, "renameSync").mockImplementationOnce(() => {
      throw Object.assign(new Error("ENOSPC: no space left on device, rename"), { code: "ENOSPC" });
    });
    try {
      await expect(
        run(["let-in", "--count", "2", "--launch-tool", "--format", "csv", "--out", out], shell),
      ).rejects.toThrow(
        new PendingError(
          "Wave 1: let in 2 people, in the order of signup, for Intuit Inc. (Mailchimp, United States) to mail, but its file could not be written (ENOSPC: no space left on device, rename). Write it with export --launch --wave 1 --format csv --out FILE.",
        ),
      );
    } finally {
      rename.mockRestore();
    }
    await expect(run(["export", "--launch", "--wave", "1", "--format", "csv", "--out", out], shell)).resolves.toMatch(
      /: 2 addresses of wave 1, each with its own leave link and wave/,
    );
  });

  it("gives the tool each address exactly as stored, formula-like or not, and never a wave let-in mailed itself", async () => {
    await seed(["-x@example.com", "=2*5@example.com"]);
    const shell = forTool();
    await run(["let-in", "--count", "6"], env);
    const out = path.join(dir, "wave.csv");
    const launch = ["export", "--launch", "--format", "csv", "--out", out];
    await expect(run([...launch, "--wave", "1"], shell)).rejects.toThrow(
      new UsageError(
        "Wave 1 was e-mailed by let-in, not handed to the launch tool: its file would have the tool mail them a second time; nothing was written.",
      ),
    );
    await expect(run(launch, shell)).rejects.toThrow(/^Nobody is let in for the launch tool yet: /);
    const output = await run(["let-in", "--count", "2", "--launch-tool", "--format", "csv", "--out", out], shell);
    expect(output).toContain(
      "2 addresses begin with =, +, - or @, as it was given: import the file into the tool as it is, and do not open it in a spreadsheet, which would read them as a formula.",
    );
    const rows = parse(readFileSync(out, "utf8"), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.email, row.wave])).toEqual([
      ["-x@example.com", "2"],
      ["=2*5@example.com", "2"],
    ]);
    // The record is read in a spreadsheet: there, the same addresses are escaped.
    expect(await run(["export", "--record", "--format", "csv", "--wave", "2"], env)).toContain("'-x@example.com");
  });

  it("shows a dry run's wave and changes nothing; refuses without LAUNCH_URL, or a postal address for real mail", async () => {
    await seed();
    await expect(run(["let-in", "--count", "2", "--order", "invites", "--dry-run"], env)).resolves.toBe(
      [
        `Would let in 2 people as wave 1, by invites, each e-mailed "You're in":`,
        "  1. cleo@example.com (signed up 2026-11-20, 2 confirmed invites)",
        "  2. ada@example.com (signed up 2026-11-20, 0 confirmed invites)",
        'Each gets "You\'re in: early access to Tandem is open for you", its button to https://app.jointandem.app/start, their own leave link and Tandem Labs GmbH, Example Street 1, 10115 Berlin, Germany.',
      ].join("\n"),
    );
    expect(Object.values(await waves()).every(([wave]) => wave === null)).toBe(true);
    const { LAUNCH_URL: _url, ...noUrl } = env;
    await expect(run(["let-in", "--count", "2"], noUrl)).rejects.toThrow(
      new UsageError(
        "Nobody let in: set LAUNCH_URL to the address where those let in start (the launched product's sign-up page). The e-mail's button leads there.",
      ),
    );
    await expect(
      run(["let-in", "--count", "2"], { ...env, LAUNCH_URL: "http://localhost:8000/start" }),
    ).rejects.toThrow(
      /^Nobody let in: LAUNCH_URL is http:\/\/localhost:8000\/start, an address on this machine that nobody you mail can open\./,
    );
    const { CONTROLLER_ADDRESS: _address, ...noAddress } = env;
    await expect(run(["let-in", "--count", "2"], noAddress)).rejects.toThrow(/^Nothing sent: set CONTROLLER_NAME/);
    for (const [args, message] of [
      [["--count", "0"], '--count must be a whole number from 1 to 10,000,000 (got "0").'],
      [["--count", "2", "--order", "random"], 'Unknown order "random": use --order invites or --order signup.'],
      [["--count", "2", "--out", "x.csv"], "--format and --out go with --launch-tool"],
      [["--count", "2", "--launch-tool"], "Say the launch tool's file: --launch-tool --format csv|json --out FILE."],
    ] as const) {
      await expect(run(["let-in", ...args], env)).rejects.toThrow(message);
    }
    expect(smtp.deliveries).toEqual([]);
  });

  it("writes its e-mails to the outbox without SMTP_URL, as the other commands do", async () => {
    await seed();
    const outbox = path.join(dir, "outbox");
    const { SMTP_URL: _smtp, CONTROLLER_NAME: _name, ...local } = env;
    await expect(run(["let-in", "--count", "2"], { ...local, OUTBOX_DIR: outbox })).resolves.toMatch(
      /^Wave 1: let in 2 people, in the order of signup\. Sent "You're in" to 2 of them \(via /,
    );
    expect(readdirSync(outbox)).toHaveLength(2);
  });

  it("lets nobody in to this machine's outbox from a Postgres list: only a local SQLite file may (issue 61)", async () => {
    const outbox = path.join(dir, "outbox");
    const { SMTP_URL: _smtp, ...noSmtp } = env;
    // Refused before the database is reached: nothing is let in there, and no file is written here.
    const production = { ...noSmtp, OUTBOX_DIR: outbox, DATABASE_URL: "postgres://founder@127.0.0.1:1/waitlist" };
    for (const args of [
      ["--count", "2"],
      ["--count", "2", "--order", "invites", "--per-second", "5"],
    ]) {
      await expect(run(["let-in", ...args], production)).rejects.toThrow(
        new UsageError(
          "Nobody let in: set SMTP_URL to the mail server the site sends through. Without it the e-mails would only be written to the outbox on this machine, where they reach nobody, and be recorded as sent in the Postgres database of DATABASE_URL; only a local SQLite file (WAITLIST_DB) lets in to the outbox. --dry-run shows the wave.",
        ),
      );
    }
    expect(fs.existsSync(outbox)).toBe(false);
  });
});

describe("let-in: the signups from before the confirm step, asked first (issue 61)", () => {
  const refusal =
    "Nobody let in: 1 signup from before the confirm step was never asked to confirm, and the Privacy Policy promises to ask each once before the launch. Ask them first: npm run waitlist -- ask-to-confirm, then run let-in again.";

  it("starts no wave while count reports one never asked, by e-mail or for the tool, and names the command that asks", async () => {
    await seed();
    const store = new SqliteStore(env.WAITLIST_DB!);
    await store.add({
      email: "early@example.com",
      emailKey: "early@example.com",
      source: "start",
      at: at(0),
      earlier: true,
    });
    await store.close();
    await expect(run(["count"], env)).resolves.toContain(
      "1 signed up before the confirm step and were never asked to confirm: npm run waitlist -- ask-to-confirm",
    );
    const out = path.join(dir, "wave.csv");
    const tool = forTool();
    await expect(run(["let-in", "--count", "2"], env)).rejects.toThrow(new UsageError(refusal));
    await expect(
      run(["let-in", "--count", "2", "--launch-tool", "--format", "csv", "--out", out], tool),
    ).rejects.toThrow(new UsageError(refusal));
    // A dry run shows the wave, and that it would be refused.
    const dry = await run(["let-in", "--count", "2", "--dry-run"], env);
    expect(dry).toMatch(/^Would let in 2 people as wave 1/);
    expect(dry).toContain(`Refused for now, as it stands: ${refusal.replace("Nobody let in: ", "")}`);
    expect(smtp.deliveries).toEqual([]);
    expect(fs.existsSync(out)).toBe(false);
    expect(Object.values(await waves()).every(([wave]) => wave === null)).toBe(true);

    // Asked (their e-mail owed, for the site's sweep or resend-pending to send), the launch goes on.
    await expect(run(["ask-to-confirm"], env)).resolves.toMatch(/^Asked 1 signup from before the confirm step/);
    await expect(run(["let-in", "--count", "2"], env)).resolves.toMatch(
      /^Wave 1: let in 2 people, in the order of signup/,
    );
  });
});
