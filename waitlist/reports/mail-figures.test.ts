import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { load } from "cheerio";
import { run } from "../../cli/run";
import type { MailMessage } from "../mail/confirmation-message";
import type { MailDay } from "../signup-life/types";
import { SqliteStore } from "../stores/sqlite-store";
import { testSite } from "../../test/support/site-settings";
import { sendFoundersDigest } from "./daily-digest";
import { mailFigures, mailWindowFrom } from "./mail-figures";
import { createMailPace, paceSetting, type PaceShard } from "../mail/pace";
import { mailLimits, readEnv } from "../../config/env";
import { reportFigures } from "./report";
import { reportHtml } from "./report-html";
import type { WaitlistStats } from "./stats";

/*
 * The mail's bounces and complaints as the founders read them: stats, the report and the daily digest, each from the
 * store's day figures (countMail, mailDays), with the rates over 7 days and a warning before SES's review thresholds.
 */

const mailDay = (day: string, counts: Partial<Omit<MailDay, "day">>): MailDay => ({
  day,
  ...{ sent: 0, throttled: 0, bounced: 0, complained: 0 },
  ...counts,
});

describe("the mail's figures over 7 days", () => {
  it("sums the 7 days to the day asked, rates bounces and complaints by the mail sent, and leaves other days out", () => {
    const figures = mailFigures(
      [
        mailDay("2026-11-20", { sent: 1_000, bounced: 400 }),
        mailDay("2026-11-21", { sent: 600, bounced: 10, complained: 1 }),
        mailDay("2026-11-27", { sent: 400, throttled: 7, bounced: 2 }),
        mailDay("2026-11-28", { sent: 50, bounced: 50 }),
      ],
      "2026-11-27",
    );
    expect(figures).toEqual({
      from: "2026-11-21",
      to: "2026-11-27",
      day: { sent: 400, throttled: 7, bounced: 2, complained: 0 },
      week: { sent: 1_000, throttled: 7, bounced: 12, complained: 1 },
      bounceRate: 0.012,
      complaintRate: 0.001,
      warnings: [expect.stringMatching(/^Complaints are 0\.10 % .*past the 0\.10 % at which Amazon SES reviews/)],
      outlook: null,
      reported: true,
    });
    expect(mailWindowFrom("2026-11-27")).toBe("2026-11-21");
    // Nothing sent: no rate, and nothing to warn of.
    expect(mailFigures([mailDay("2026-11-27", { bounced: 3 })], "2026-11-27")).toMatchObject({
      bounceRate: null,
      warnings: [],
    });
  });

  it.each([
    ["quiet", 200, 0, []],
    [
      "nearing the review",
      250,
      0,
      [/^Bounces for good are 2\.50 % .*: nearing the 5\.00 % at which Amazon SES reviews/],
    ],
    [
      "past the review",
      600,
      0,
      [/: past the 5\.00 % at which Amazon SES reviews the account \(it may pause sending at 10\.00 %\)/],
    ],
    ["at the pause", 1_000, 0, [/: at or past the 10\.00 % at which Amazon SES may pause the account's sending/]],
    ["complaints near", 0, 5, [/^Complaints are 0\.05 % .*nearing the 0\.10 %/]],
    ["both", 600, 50, [/^Bounces/, /^Complaints are 0\.50 % .*at or past the 0\.50 %/]],
  ])("%s: the warnings, each saying what to do", (_name, bounced, complained, warnings) => {
    const figures = mailFigures([mailDay("2026-11-27", { sent: 10_000, bounced, complained })], "2026-11-27");
    expect(figures.warnings).toEqual(warnings.map((pattern) => expect.stringMatching(pattern)));
    for (const warning of figures.warnings) expect(warning).toMatch(/bot protection|leave link/);
  });
});

describe("stats, the report and the digest show them", () => {
  let dir: string;
  let file: string;
  const today = new Date().toISOString().slice(0, 10);
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "mail-figures-"));
    file = path.join(dir, "waitlist.db");
    const store = new SqliteStore(file);
    await store.countMail(today, { sent: 100, bounced: 6, complained: 0 });
    await store.countMail(mailWindowFrom(today), { sent: 100, complained: 1 });
    await store.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A site whose provider reports its bounces and complaints: Postmark's route is set. */
  const reporting = () => ({ WAITLIST_DB: file, POSTMARK_WEBHOOK_AUTH: "postmark:Xq7vR2mK9pL4wT8nB3cF6hJ1" });

  it("npm run waitlist -- stats: the counts, the 7-day rates and the warning, in text and in --json", async () => {
    const json = JSON.parse(await run(["stats", "--json"], reporting())) as WaitlistStats;
    expect(json.mail).toMatchObject({
      week: { sent: 200, bounced: 6, complained: 1 },
      bounceRate: 0.03,
      complaintRate: 0.005,
      warnings: [
        expect.stringMatching(/^Bounces for good are 3\.00 %/),
        expect.stringMatching(/^Complaints are 0\.50 %/),
      ],
    });
    const text = await run(["stats"], reporting());
    expect(text).toContain(
      `Mail, the 7 days ${mailWindowFrom(today)} to ${today} (UTC): 200 sent, 6 bounced for good (3.00 %), 1 marked as spam (0.50 %)`,
    );
    expect(text).toContain("  Today so far (UTC): 100 sent, 6 bounced for good, 0 marked as spam");
    expect(text).toMatch(
      /\n {2}Warning: Bounces for good are 3\.00 % of the mail sent in the last 7 days: nearing the 5\.00 %/,
    );
  });

  it("says bounces and complaints are not reported where no provider's event route is set, and what would report them (issue 67)", async () => {
    const json = JSON.parse(await run(["stats", "--json"], { WAITLIST_DB: file })) as WaitlistStats;
    expect(json.mail).toMatchObject({ reported: false, bounceRate: null, complaintRate: null, warnings: [] });
    const text = await run(["stats"], { WAITLIST_DB: file });
    expect(text).toContain(
      `Mail, the 7 days ${mailWindowFrom(today)} to ${today} (UTC): 200 sent; bounces and complaints not reported: no provider's event route is set (SES_SNS_TOPIC_ARN, RESEND_WEBHOOK_SECRET or POSTMARK_WEBHOOK_AUTH: docs/waitlist.md, Bounces and complaints); a plain SMTP server, Google Workspace and Microsoft 365 report none to the site`,
    );
    expect(text).toMatch(/\n {2}Today so far \(UTC\): 100 sent(\n|$)/);
    expect(text).not.toMatch(/0\.00 %|bounced for good \(/);
    const unreported = mailFigures([mailDay("2026-11-27", { sent: 1_000 })], "2026-11-27", null, false);
    const figures = reportFigures(
      [],
      { left: 0, pruned: 0, afterWave: 0 },
      { now: new Date("2026-11-27T12:00:00Z"), mail: unreported },
    );
    const svg = '<svg width="10" height="10"></svg>';
    const charts = { perDay: svg, funnel: svg, sources: svg, campaigns: svg, referralTags: svg, topInviters: svg };
    const $ = load(reportHtml(figures, charts, { from: "a test" }));
    const cells = $("table:has(caption:contains('The mail')) tbody td")
      .toArray()
      .map((cell) => $(cell).text());
    expect(cells).toEqual(["1,000", "not reported", "not reported", "1,000", "not reported", "not reported"]);
  });

  it("the report: a section with the 7 days and the day, the warnings first", () => {
    const mail = mailFigures([mailDay("2026-11-27", { sent: 1_000, bounced: 60, complained: 0 })], "2026-11-27");
    const figures = reportFigures(
      [],
      { left: 0, pruned: 0, afterWave: 0 },
      { now: new Date("2026-11-27T12:00:00Z"), mail },
    );
    const svg = '<svg width="10" height="10"></svg>';
    const charts = { perDay: svg, funnel: svg, sources: svg, campaigns: svg, referralTags: svg, topInviters: svg };
    const $ = load(reportHtml(figures, charts, { from: "a test" }));
    expect($("section[aria-labelledby=mail] h2#mail").text()).toBe("The mail: its pace, bounces and complaints");
    expect($("#mail + p").text()).toMatch(/^Warning: Bounces for good are 6\.00 % .*past the 5\.00 %/);
    const rows = $("table:has(caption:contains('The mail')) tbody tr")
      .toArray()
      .map((row) =>
        $(row)
          .children()
          .toArray()
          .map((cell) => $(cell).text()),
      );
    expect(rows).toEqual([
      ["7 days", "1,000", "60 (6.00 %)", "0 (0.00 %)"],
      ["2026-11-27", "1,000", "60", "0"],
    ]);
  });

  it("the digest: the day's and the 7 days' counts with their rates, and the warning in its subject", async () => {
    const store = SqliteStore.openExisting(file);
    const sent: MailMessage[] = [];
    const now = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000 + 3_600_000);
    await sendFoundersDigest({
      store,
      mailer: { send: async (message) => void sent.push(message) },
      to: ["founder@example.com"],
      now,
      site: testSite,
    });
    await store.close();
    const [{ subject, text, html }] = sent as [MailMessage];
    expect(subject).toMatch(/: 0 signups, 0 confirmed, mail near a provider's limit$/);
    expect(text).toContain(`200 sent, 6 bounced for good (3.00 %), 1 marked as spam (0.50 %)`);
    expect(text).toContain(`On ${today}: 100 sent, 6 bounced for good, 0 marked as spam`);
    expect(text).toMatch(/Warning: Complaints are 0\.50 % .*at or past the 0\.50 %/);
    expect(html).toContain("Warning: Bounces for good are 3.00 %");
  });
});

describe("the mail owed at the provider's pace (mail-outlook.ts), in stats and the digest", () => {
  let dir: string;
  let file: string;
  const now = new Date();
  const today = now.toISOString().slice(0, 10);
  /** Resend's free plan, its 100 of the day used: the pace holds every sender until the next UTC day. */
  const env = () => ({ WAITLIST_DB: file, SMTP_URL: "smtp://127.0.0.1:2525", MAIL_PROVIDER: "resend-free" });
  const tomorrow = Date.parse(`${today}T00:00:00.000Z`) + 86_400_000;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "mail-outlook-"));
    file = path.join(dir, "waitlist.db");
    const store = new SqliteStore(file);
    for (let n = 0; n < 150; n++) {
      const email = `owed${n}@example.com`;
      await store.add({ email, emailKey: email, source: "start", at: now });
    }
    // The pace's own count of the day (not yet in the day's figures) and its hold, as the senders left them.
    await store.swapSetting<PaceShard>(paceSetting(0), () => ({
      next: 0,
      day: today,
      sent: 100,
      throttled: 0,
      hold: { reason: "quota", until: tomorrow, since: now.getTime(), count: 1 },
    }));
    await store.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("npm run waitlist -- stats: the pace, the day's count, the hold and when the owed go, in text and in --json", async () => {
    const json = JSON.parse(await run(["stats", "--json"], env())) as WaitlistStats;
    expect(json.mail!.day.sent).toBe(100);
    expect(json.mail!.outlook).toMatchObject({
      provider: "Resend (free plan)",
      dailyLimit: 100,
      sentToday: 100,
      hold: { reason: "quota", until: tomorrow },
      owed: 150,
      expireUnmailed: 0,
    });
    // 100 tomorrow, the other 50 the day after.
    expect(json.mail!.outlook!.clearedBy!.slice(0, 10)).toBe(
      new Date(tomorrow + 86_400_000).toISOString().slice(0, 10),
    );
    const text = await run(["stats"], env());
    expect(text).toContain("  The pace: Resend (free plan), 2 a second, 100 a day; 100 sent today (UTC)");
    expect(text).toMatch(
      /\n {2}Held until \d{4}-\d\d-\d\d 00:00 UTC: Resend \(free plan\) says its daily quota is used\n/,
    );
    expect(text).toMatch(/\n {2}Confirmations owed: 150, the last sent by \d{4}-\d\d-\d\d \d\d:\d\d UTC at that pace/);
    // Without a mail server, the outbox folder: nothing paces it, and stats says nothing of a pace.
    expect(await run(["stats"], { WAITLIST_DB: file })).not.toContain("The pace:");
  });

  it("the digest: the hold in its subject, the day's count from the pace", async () => {
    const store = SqliteStore.openExisting(file);
    const sent: MailMessage[] = [];
    const pace = createMailPace({ store, limits: mailLimits(readEnv(env()))!, log: () => {} });
    await sendFoundersDigest({
      store,
      mailer: { send: async (message) => void sent.push(message) },
      to: ["founder@example.com"],
      now,
      site: testSite,
      pace,
    });
    await store.close();
    const [{ subject, text }] = sent as [MailMessage];
    expect(subject).toMatch(/, mail held by the provider$/);
    expect(text).toContain("Held until");
    expect(text).toContain("Confirmations owed: 150");
  });
});
