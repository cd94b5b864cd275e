import { execFile } from "node:child_process";
import fs, {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parse } from "csv-parse/sync";
import { checkEmail, checkListedEmail } from "../waitlist/email-address";
import { NotListedError, NotRemovedError } from "./errors";
import { config as netlifyConfig } from "../netlify/functions/waitlist-daily.mjs";
import { run, UsageError } from "./run";
import Database from "better-sqlite3";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import { StoreError } from "../waitlist/stores/store";
import { verifyLeaveToken } from "../waitlist/tokens";
import { suppressionFingerprint } from "../waitlist/suppressions";
import { mailConfig, readEnv } from "../config/env";
import { createMailer } from "../waitlist/mail/mailer";
import { startSmtpServer } from "../test/support/smtp";
import { startPolicySite, type PolicySite } from "../test/support/policy-site";
import { freePort } from "../test/support/free-port";

/** The launch mail tool the site's Privacy Policy names, as a test's site serves it (SITE_URL: launchEnv()). */
const tool = "Intuit Inc. (Mailchimp, United States)";
let policySite: PolicySite;
beforeAll(async () => {
  policySite = await startPolicySite();
});
afterAll(() => policySite.stop());
import { runWaitlist } from "../test/support/process";

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "cli-"));
  env = { WAITLIST_DB: path.join(dir, "waitlist.db") };
  policySite.names(tool);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The founders' shell for the launch commands: the site whose Privacy Policy names the tool. */
const launchEnv = () => ({ ...env, SITE_URL: policySite.url });
/** A leave link to the site of launchEnv(). */
const siteLeaveUrl = () => new RegExp(`^${policySite.url.replace(/[.]/g, "\\.")}/waitlist/leave\\?token=[\\w-]+$`);

/** Where Ada came from: a comma in the campaign, for CSV's quoting. */
const adaAttribution = {
  utmSource: "tiktok",
  utmMedium: "social",
  utmCampaign: "launch, week 1",
  utmContent: null,
  utmTerm: null,
  ref: "maya",
  landingPath: "/",
};

async function seed() {
  const store = new SqliteStore(env.WAITLIST_DB!);
  await store.add({
    email: "ada@example.com",
    emailKey: "ada@example.com",
    source: "start",
    at: new Date("2025-06-01T09:00:00Z"),
    attribution: adaAttribution,
    privacyPolicy: "2025-06-01",
  });
  await store.add({
    email: '"Byron, Lord"@example.com',
    emailKey: '"byron, lord"@example.com',
    source: "develop",
    at: new Date("2025-06-02T09:00:00Z"),
  });
  await store.add({
    email: "=2*5@example.com",
    emailKey: "=2*5@example.com",
    source: "start",
    at: new Date("2025-06-03T09:00:00Z"),
  });
  await store.markConfirmationSent("ada@example.com", new Date("2025-06-01T09:00:01Z"));
  await store.confirm("ada@example.com", {
    createdAt: "2025-06-01T09:00:00.000Z",
    at: new Date("2025-06-01T09:05:00Z"),
    privacyPolicy: "2025-06-01",
  });
  await store.claimConfirmation('"byron, lord"@example.com', {
    now: new Date("2025-06-02T09:00:01Z"),
    leaseMs: 60_000,
  });
  await store.failConfirmation(
    '"byron, lord"@example.com',
    "550 5.1.1 mailbox unavailable",
    new Date("2025-06-02T09:00:02Z"),
  );
  await store.close();
}

describe("npm run waitlist", () => {
  it("counts the addresses", async () => {
    await seed();
    await expect(run(["count"], env)).resolves.toBe(
      [
        "3 addresses on the waitlist: 1 confirmed, 2 not (yet).",
        "Confirmation e-mails: 1 sent, 1 pending, 1 refused by the mail server.",
        // A failed mail's address is only shown shortened (the Privacy Policy; issue 52).
        '  refused: "***@example.com (2025-06-02T09:00:02.000Z): 550 5.1.1 mailbox unavailable',
      ].join("\n"),
    );
  });

  it("exports CSV that a spreadsheet reads back, quotes and commas included", async () => {
    await seed();
    expect(parse(await run(["export", "--record", "--format", "csv"], env), { columns: true, bom: true })).toEqual([
      {
        email: "ada@example.com",
        created_at: "2025-06-01T09:00:00.000Z",
        source: "start",
        confirmation_sent_at: "2025-06-01T09:00:01.000Z",
        confirmation_failed_at: "",
        confirmation_error: "",
        utm_source: "tiktok",
        utm_medium: "social",
        utm_campaign: "launch, week 1",
        utm_content: "",
        utm_term: "",
        ref: "maya",
        landing_path: "/",
        confirmed_at: "2025-06-01T09:05:00.000Z",
        privacy_policy_at_signup: "2025-06-01",
        privacy_policy_at_confirm: "2025-06-01",
        opt_in_since: "2025-06-01T09:00:00.000Z",
        consent_at_signup: "",
        consent_at_confirm: "",
        // Confirmed: her own invite code; by nobody's link; nobody by hers yet.
        invite_code: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
        invited_by: "",
        confirmed_invites: "0",
        // All else kept of her: no repeat, no attempt under way (the seed marks the mail sent), no fingerprint yet.
        repeat_signups: "0",
        confirmation_attempts: "0",
        mailbox_digest: "",
        announcements: "",
        wave: "",
        let_in_at: "",
        let_in_mail: "",
        attribution_objected_at: "",
        invite_objected_at: "",
        ranking_objected_at: "",
        records_objected_at: "",
        restricted_at: "",
        state: "confirmed",
      },
      {
        email: '"Byron, Lord"@example.com',
        created_at: "2025-06-02T09:00:00.000Z",
        source: "develop",
        confirmation_sent_at: "",
        confirmation_failed_at: "2025-06-02T09:00:02.000Z",
        confirmation_error: "550 5.1.1 mailbox unavailable",
        utm_source: "",
        utm_medium: "",
        utm_campaign: "",
        utm_content: "",
        utm_term: "",
        ref: "",
        landing_path: "",
        confirmed_at: "",
        privacy_policy_at_signup: "",
        privacy_policy_at_confirm: "",
        opt_in_since: "2025-06-02T09:00:00.000Z",
        consent_at_signup: "",
        consent_at_confirm: "",
        invite_code: "",
        invited_by: "",
        confirmed_invites: "0",
        repeat_signups: "0",
        confirmation_attempts: "1",
        mailbox_digest: "",
        announcements: "",
        wave: "",
        let_in_at: "",
        let_in_mail: "",
        attribution_objected_at: "",
        invite_objected_at: "",
        ranking_objected_at: "",
        records_objected_at: "",
        restricted_at: "",
        state: "refused",
      },
      expect.objectContaining({ email: "'=2*5@example.com" }),
    ]);
  });

  it("starts a CSV export with UTF-8's byte-order mark, which Excel needs to show josé as josé; JSON has none", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    await store.add({ email: "jos\u00e9@ex\u00e4mple.com", emailKey: "jos\u00e9@xn--exmple-cua.com", source: "start" });
    await store.close();
    const out = path.join(dir, "signups.csv");
    await run(["export", "--record", "--format", "csv", "--out", out], env);
    const bytes = readFileSync(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString("utf8")).toContain("jos\u00e9@ex\u00e4mple.com");
    expect(await run(["export", "--record", "--format", "csv"], env)).toMatch(/^\uFEFFemail,/);
    expect(await run(["export", "--record", "--format", "json"], env)).toMatch(/^\[/);
  });

  it.each(["=2*5@example.com", "+1-2@example.com", "-2+3@example.com", "@SUM(1+9)@example.com", "\t=1@example.com"])(
    "exports %j as text a spreadsheet will not run as a formula",
    async (email) => {
      const store = new SqliteStore(env.WAITLIST_DB!);
      await store.add({ email, emailKey: email, source: "start" });
      await store.close();
      const [row] = parse(await run(["export", "--record", "--format", "csv"], env), { columns: true, bom: true }) as {
        email: string;
      }[];
      expect(row!.email).toBe(`'${email}`);
    },
  );

  it.each(['=HYPERLINK("https://evil.test")', "+1", "-1", "@SUM(A1)", "\tcmd", "\rcmd"])(
    "exports the campaign tag %j, which came from a visitor's link, as text in CSV",
    async (tag) => {
      const store = new SqliteStore(env.WAITLIST_DB!);
      const attribution = { utmMedium: null, utmCampaign: null, utmContent: null, utmTerm: null, landingPath: "/" };
      await store.add({
        email: "a@example.com",
        emailKey: "a@example.com",
        source: "start",
        attribution: { ...attribution, utmSource: tag, ref: tag },
      });
      await store.close();
      const [row] = parse(await run(["export", "--record", "--format", "csv"], env), {
        columns: true,
        bom: true,
      }) as Record<string, string>[];
      expect([row!.utm_source, row!.ref]).toEqual([`'${tag}`, `'${tag}`]);
    },
  );

  it("exports with --leave-urls each signup's own one-click leave link in the record, and none without it", async () => {
    await seed();
    const rows = JSON.parse(await run(["export", "--record", "--format", "json", "--leave-urls"], env)) as {
      email: string;
      createdAt: string;
      leaveUrl: string;
    }[];
    expect(rows.map((row) => row.email)).toEqual(["ada@example.com", '"Byron, Lord"@example.com', "=2*5@example.com"]);
    const link = new URL(rows[0]!.leaveUrl);
    expect(`${link.origin}${link.pathname}`).toBe("https://jointandem.app/waitlist/leave");
    expect(rows[0]!.leaveUrl).not.toMatch(/ada|YWRh/i);
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const secret = await store.secret("leave", () => "never made here");
    await store.close();
    expect(verifyLeaveToken(link.searchParams.get("token"), secret)).toEqual({
      email: "ada@example.com",
      key: "ada@example.com",
      createdAt: rows[0]!.createdAt,
    });
    const csv = parse(await run(["export", "--record", "--format", "csv", "--leave-urls"], env), {
      columns: true,
      bom: true,
    }) as { leave_url: string }[];
    expect(csv).toHaveLength(3);
    for (const row of csv) expect(row.leave_url).toMatch(/^https:\/\/jointandem\.app\/waitlist\/leave\?token=[\w-]+$/);
    // Without the flag, no link leaves the machine.
    expect(await run(["export", "--record", "--format", "csv"], env)).not.toContain("leave");
  });

  it("names each export for what it is: --record or --launch, never neither, and --confirmed no more", async () => {
    await seed();
    for (const args of [
      ["export", "--format", "csv"],
      ["export", "--record", "--launch", "--format", "csv"],
    ]) {
      await expect(run(args, env)).rejects.toThrow(
        new UsageError(
          "Say which export: --record, a copy of every signup as the store keeps it (to answer a question or someone's request for what you hold, then delete), or --launch --out FILE, the file to import into the launch mail tool.",
        ),
      );
    }
    // The way a launch list was made before issue 51: every column of every confirmed signup, for a mail tool.
    for (const args of [
      ["export", "--confirmed", "--format", "csv", "--out", path.join(dir, "launch.csv")],
      ["export", "--record", "--confirmed", "--format", "json"],
    ]) {
      await expect(run(args, env)).rejects.toThrow(
        new UsageError(
          "export --confirmed is gone: the launch mail tool gets those let in, a wave at a time (let-in, then export --launch --wave N --format csv --out FILE: each address with its own leave link and wave, nothing else), and a copy of every signup's record, to answer a question or a request, is export --record.",
        ),
      );
    }
    expect(readdirSync(dir).filter((name) => name.includes("launch"))).toEqual([]);
  });

  it("removes the addresses of a mailing tool's unsubscribe export, as a leave would, and fails naming each row it could not", async () => {
    await seed();
    const file = path.join(dir, "unsubscribed_members_export.csv");
    writeFileSync(
      file,
      "\uFEFFEmail Address,First Name,UNSUB_TIME,UNSUB_REASON\n" +
        "ADA@example.com,Ada,2026-11-20 10:00:00,No longer interested\n" +
        "nobody@example.com,,2026-11-21 10:00:00,\n" +
        // A blank line, and a row a spreadsheet left with nothing in it: nobody to remove.
        "\n,,,\n" +
        "not an address,,2026-11-22 10:00:00,\n" +
        ",,2026-11-23 10:00:00,\n",
    );
    const failed: unknown = await run(["remove-unsubscribed", "--from", file], env).catch((error) => error);
    expect(failed).toBeInstanceOf(NotRemovedError);
    expect((failed as Error).message).toBe(
      [
        `Removed 1 of the 2 addresses in ${file}; 1 was not on the list.`,
        `2 rows were not removed: correct them and run this again, or remove each with npm run waitlist -- remove <address>.`,
        '  line 6: "not an address": The e-mail address needs a name, an @ and a domain.',
        '  line 7: "": Enter an e-mail address.',
      ].join("\n"),
    );
    // The rows it could read are removed all the same: an unsubscribe waits for no other.
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    expect((await store.all()).map((signup) => signup.email)).not.toContain("ada@example.com");
    expect(await store.departures()).toBe(1);
    await store.close();
  });

  it("exits 2 when a row of an unsubscribe file was not removed, so that a script notices", async () => {
    await seed();
    const file = path.join(dir, "cleaned.csv");
    writeFileSync(file, "Email\nnot an address\n");
    const failure = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", path.join(__dirname, "main.ts"), "remove-unsubscribed", "--from", file],
      { env: { ...process.env, ...env } },
    ).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2, stdout: "" });
    expect(failure!.stderr).toContain('line 2: "not an address"');
  }, 30_000);

  it("refuses an unsubscribe file it cannot read, changing nothing", async () => {
    await seed();
    const file = path.join(dir, "list.csv");
    writeFileSync(file, "Name,Phone\nAda,123\n");
    await expect(run(["remove-unsubscribed", "--from", file], env)).rejects.toThrow(
      `${file} has no column named Email or Email Address in its first line.`,
    );
    await expect(run(["remove-unsubscribed"], env)).rejects.toThrow(
      "Say which file: remove-unsubscribed --from FILE.csv",
    );
    await expect(run(["count"], env)).resolves.toMatch(/^3 addresses on the waitlist:/);
  });

  it("prunes signups asked to confirm longer ago than given that never did, after a dry run that lists them", async () => {
    await seed();
    const store = new SqliteStore(env.WAITLIST_DB!);
    const now = Date.now();
    for (const [email, daysAgo] of [
      ["old@example.com", 31],
      ["recent@example.com", 29],
    ] as const) {
      await store.add({ email, emailKey: email, source: "start", at: new Date(now - daysAgo * 86_400_000) });
    }
    // From before the confirm step, never asked: never pruned, however old.
    await store.add({
      email: "earlier@example.com",
      emailKey: "earlier@example.com",
      source: "start",
      at: new Date(0),
      earlier: true,
    });
    await store.close();
    const dry = await run(["prune", "--unconfirmed-older-than", "30d", "--dry-run"], env);
    expect(dry.split("\n")).toEqual([
      expect.stringMatching(/^Would remove 3 unconfirmed signups asked to confirm before \d{4}-\d\d-\d\dT/),
      '  "Byron, Lord"@example.com (asked 2025-06-02T09:00:00.000Z)',
      "  =2*5@example.com (asked 2025-06-03T09:00:00.000Z)",
      expect.stringMatching(/^ {2}old@example\.com \(asked /),
    ]);
    await expect(run(["count"], env)).resolves.toMatch(/^6 addresses/);
    await expect(run(["prune", "--unconfirmed-older-than", "30d"], env)).resolves.toMatch(
      /^Removed 3 unconfirmed signups asked to confirm before /,
    );
    const left = JSON.parse(await run(["export", "--record", "--format", "json"], env)) as { email: string }[];
    expect(left.map((row) => row.email).sort()).toEqual([
      "ada@example.com",
      "earlier@example.com",
      "recent@example.com",
    ]);
    // Pruned, not left: nobody used a leave link.
    expect(JSON.parse(await run(["stats", "--json"], env))).toMatchObject({ left: 0, pruned: 3 });
    // Run again: nothing is left to remove, and it says so.
    await expect(run(["prune", "--unconfirmed-older-than", "30d", "--dry-run"], env)).resolves.toMatch(
      /^No unconfirmed signup was asked to confirm before \d{4}-\d\d-\d\dT[\d:.]+Z: nothing to remove\.$/,
    );
  });

  it.each([[], ["--unconfirmed-older-than", "30"], ["--unconfirmed-older-than", "a month"]])(
    "refuses prune without an age in days or hours: %j",
    async (...args) => {
      await expect(run(["prune", ...(args as string[])], env)).rejects.toThrow(UsageError);
    },
  );

  it("asks the signups from before the confirm step to confirm, once", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    const at = new Date("2025-01-01T00:00:00Z");
    await store.add({
      email: "earlier@example.com",
      emailKey: "earlier@example.com",
      source: "start",
      at,
      earlier: true,
      confirmationSentAt: at,
    });
    await store.close();
    await expect(run(["count"], env)).resolves.toContain(
      "1 signed up before the confirm step and were never asked to confirm: npm run waitlist -- ask-to-confirm",
    );
    await expect(run(["ask-to-confirm"], env)).resolves.toMatch(/^Asked 1 signup from before the confirm step/);
    await expect(run(["ask-to-confirm"], env)).resolves.toMatch(/^Asked 0 signups/);
    await expect(run(["count"], env)).resolves.toContain("0 sent, 1 pending");
  });

  it("exports JSON to a file, and says it is a copy to delete once its question is answered: the store is the record", async () => {
    await seed();
    const out = path.join(dir, "signups.json");
    await expect(run(["export", "--record", "--format", "json", "--out", out], env)).resolves.toBe(
      `Wrote ${out}: 3 signups as the store keeps them, a copy for the question or request it answers. Delete it once that is answered, within a month at most: the store is the record, and no leave, remove or 30-day pass reaches this copy.`,
    );
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual([
      {
        email: "ada@example.com",
        createdAt: "2025-06-01T09:00:00.000Z",
        source: "start",
        confirmationSentAt: "2025-06-01T09:00:01.000Z",
        confirmationFailedAt: null,
        confirmationError: null,
        ...adaAttribution,
        confirmedAt: "2025-06-01T09:05:00.000Z",
        privacyPolicyAtSignup: "2025-06-01",
        privacyPolicyAtConfirm: "2025-06-01",
        optInSince: "2025-06-01T09:00:00.000Z",
        consentAtSignup: null,
        consentAtConfirm: null,
        inviteCode: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
        invitedBy: null,
        confirmedInvites: 0,
        repeatSignups: 0,
        confirmationAttempts: 0,
        mailboxDigest: null,
        announcements: [],
        wave: null,
        letInAt: null,
        letInMail: null,
        attributionObjectedAt: null,
        inviteObjectedAt: null,
        rankingObjectedAt: null,
        recordsObjectedAt: null,
        restrictedAt: null,
        state: "confirmed",
      },
      expect.objectContaining({
        email: '"Byron, Lord"@example.com',
        createdAt: "2025-06-02T09:00:00.000Z",
        source: "develop",
        confirmationSentAt: null,
        confirmationFailedAt: "2025-06-02T09:00:02.000Z",
        confirmationError: "550 5.1.1 mailbox unavailable",
        utmSource: null,
      }),
      // JSON is data, not a sheet: the address stays as typed.
      expect.objectContaining({ email: "=2*5@example.com" }),
    ]);
  });

  it("explains a missing store, a missing or unknown format and an unknown command", async () => {
    await expect(run(["count"], env)).rejects.toThrow(StoreError);
    await expect(run(["count"], env)).rejects.toThrow(
      /No waitlist store at .*\(npm start\); set WAITLIST_DB to read another file\./,
    );
    await seed();
    await expect(run(["export", "--record"], env)).rejects.toThrow(
      new UsageError("Say which format: --format csv or --format json."),
    );
    await expect(run(["export", "--record", "--format", "xml"], env)).rejects.toThrow(
      /Unknown format "xml": use --format csv or --format json\./,
    );
    await expect(run(["delete-all"], env)).rejects.toThrow(/Unknown command "delete-all"/);
  });

  it("removes an address however it is spelled, with any confirmation still owed, and says so", async () => {
    await seed();
    await expect(run(["remove", "  =2*5@EXAMPLE.com "], env)).resolves.toBe(
      "Removed =2*5@example.com (on the list since 2025-06-03T09:00:00.000Z); any confirmation still owed to it is cancelled.",
    );
    await expect(run(["remove", "=2*5@example.com"], env)).resolves.toBe(
      "=2*5@example.com is not on the waitlist; nothing removed.",
    );
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    expect((await store.all()).map((signup) => signup.email)).toEqual(["ada@example.com", '"Byron, Lord"@example.com']);
    expect(await store.pendingConfirmations()).toEqual([]);
    expect(await store.departures()).toBe(1);
    await store.close();
  });

  it("removes, by hand and from an unsubscribe file, look-alikes listed before the form refused them", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    for (const typed of ["vict\u0456m@example.com", "\u017Ftefan@example.com", "a@p\u0430ypal.com"]) {
      const listed = checkListedEmail(typed);
      if (!listed.ok || checkEmail(typed).ok) throw new Error(`${typed} is no look-alike listed before`);
      await store.add({ email: listed.email, emailKey: listed.key, source: "start" });
    }
    await store.close();
    await expect(run(["remove", "vict\u0456m@example.com"], env)).resolves.toMatch(
      /^Removed vict\u0456m@example\.com /,
    );
    const file = path.join(dir, "unsubscribed.csv");
    writeFileSync(file, "Email\n\u017Ftefan@example.com\na@p\u0430ypal.com\n");
    await expect(run(["remove-unsubscribed", "--from", file], env)).resolves.toBe(
      `Removed 2 of the 2 addresses in ${file}; 0 were not on the list.`,
    );
    await expect(run(["count"], env)).resolves.toMatch(/^0 addresses/);
  });

  it("counts each departure of a mailing tool's file as what the file says they did, never as the operator's (issue 67)", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    const people = ["gone@example.com", "spam@example.com", "left@example.com", "asked@example.com"];
    for (const email of people) await store.add({ email, emailKey: email, source: "start" });
    await store.close();
    for (const [as, email] of [
      ["bounced", "gone"],
      ["complained", "spam"],
      [undefined, "left"],
    ] as const) {
      const file = path.join(dir, `${email}.csv`);
      writeFileSync(file, `Email\n${email}@example.com\n`);
      await run(["remove-unsubscribed", "--from", file, ...(as ? ["--as", as] : [])], env);
    }
    await run(["remove", "asked@example.com"], env);
    // How each left, as the store keeps it (the departures name nobody).
    const db = new Database(env.WAITLIST_DB!, { readonly: true });
    const kinds = db.prepare("SELECT how FROM departures ORDER BY id").pluck().all();
    db.close();
    expect(kinds).toEqual(["undeliverable", "complaint", "link", "operator"]);
    const file = path.join(dir, "any.csv");
    writeFileSync(file, "Email\nx@example.com\n");
    await expect(run(["remove-unsubscribed", "--from", file, "--as", "left"], env)).rejects.toThrow(
      new UsageError(
        '--as says what the file\'s people did at the mailing tool: unsubscribed, bounced or complained (got "left").',
      ),
    );
  });

  it("refuses to remove without exactly one valid address", async () => {
    await seed();
    await expect(run(["remove"], env)).rejects.toThrow(
      "Say which address to remove: npm run waitlist -- remove <address>",
    );
    await expect(run(["remove", "a@example.com", "b@example.com"], env)).rejects.toThrow(UsageError);
    await expect(run(["remove", "not-an-address"], env)).rejects.toThrow(
      '"not-an-address" is not a valid address: The e-mail address needs a name, an @ and a domain.',
    );
    await expect(run(["count"], env)).resolves.toMatch(/^3 addresses on the waitlist:/);
  });

  it("prints its usage without a command", async () => {
    await expect(run([], env)).resolves.toMatch(/^Usage: npm run waitlist -- <command>/);
  });

  it("says export --record writes a copy to delete, never a file to keep: the store is the record", async () => {
    const usage = (await run([], env)).replace(/\s+/g, " ");
    expect(usage).toContain(
      "to answer a question or a request, then delete: the store is the record, and no leave, remove or 30-day pass reaches a copy; never a file to keep or to import.",
    );
    expect(usage).not.toMatch(/what you keep/);
  });

  it("says how often the running site prunes: npm start every hour, Netlify once a day", async () => {
    const usage = (await run([], env)).replace(/\s+/g, " ");
    expect(usage).toContain("npm start does it every hour, Netlify's daily function once a day");
    expect(netlifyConfig.schedule).toBe("@daily");
  });
});

describe("remove-unsubscribed reads back the project's own CSV export", () => {
  // Every character csv-stringify's escape_formulas writes an apostrophe before (csv-stringify/lib/api/index.js).
  const formulaLeads = ["=", "+", "-", "@", "\t", "\r", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20"];
  const listed = async () => {
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const emails = (await store.all()).map((signup) => signup.email);
    await store.close();
    return emails;
  };

  it("removes every address it wrote with an apostrophe before it, whatever formula character leads it", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    const emails = formulaLeads.flatMap((lead) => [`${lead}1+2@example.com`, `${lead}x-y@example.com`]);
    // Those a listed address can start with: a tab, a carriage return and a leading @ never make one (attacks 4, 5);
    // the full-width signs did before the form refused compatibility characters.
    const canonical = emails.flatMap((email) => {
      const checked = checkListedEmail(email);
      return checked.ok && checked.email === email ? [checked] : [];
    });
    expect(new Set(canonical.map(({ email }) => email[0]))).toEqual(
      new Set(["=", "+", "-", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20"]),
    );
    for (const { email, key } of canonical) await store.add({ email, emailKey: key, source: "start" });
    const addable = canonical.map(({ email }) => email);
    await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start" });
    await store.close();
    const file = path.join(dir, "everyone.csv");
    await run(["export", "--record", "--format", "csv", "--out", file], env);
    // The export escaped each one, as a spreadsheet needs.
    const cells = (parse(readFileSync(file), { columns: true, bom: true }) as { email: string }[]).map(
      (row) => row.email,
    );
    expect(cells).toEqual([...addable.map((email) => `'${email}`), "ada@example.com"]);
    await expect(run(["remove-unsubscribed", "--from", file], env)).resolves.toBe(
      `Removed ${addable.length + 1} of the ${addable.length + 1} addresses in ${file}; 0 were not on the list.`,
    );
    expect(await listed()).toEqual([]);
  });

  it("takes a cell as it stands where what follows the apostrophe is no address, or is not the one listed", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    // An apostrophe is a letter of an address too: '=literal@example.com is one of its own.
    await store.add({ email: "'=literal@example.com", emailKey: "'=literal@example.com", source: "start" });
    await store.close();
    const file = path.join(dir, "unsubscribed.csv");
    writeFileSync(file, "Email\n'=literal@example.com\n'-not an address\n");
    const failed: unknown = await run(["remove-unsubscribed", "--from", file], env).catch((error) => error);
    expect(failed).toBeInstanceOf(NotRemovedError);
    expect((failed as Error).message.split("\n")).toEqual([
      `Removed 1 of the 1 addresses in ${file}; 0 were not on the list.`,
      expect.stringMatching(/^1 row was not removed/),
      `  line 3: "'-not an address": The e-mail address needs a name, an @ and a domain.`,
    ]);
    expect(await listed()).toEqual([]);
  });

  it("removes neither of two listed addresses that one escaped cell could name, and names both", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    for (const email of ["=twin@example.com", "'=twin@example.com"]) {
      await store.add({ email, emailKey: email, source: "start" });
    }
    await store.close();
    const file = path.join(dir, "everyone.csv");
    await run(["export", "--record", "--format", "csv", "--out", file], env);
    const failed: unknown = await run(["remove-unsubscribed", "--from", file], env).catch((error) => error);
    expect(failed).toBeInstanceOf(NotRemovedError);
    expect((failed as Error).message.split("\n")).toEqual([
      `Removed 0 of the 2 addresses in ${file}; 0 were not on the list.`,
      expect.stringMatching(/^2 rows were not removed/),
      ...[2, 3].map(
        (line) =>
          `  line ${line}: "'=twin@example.com": it may name =twin@example.com or '=twin@example.com, both listed (the export writes both so).`,
      ),
    ]);
    expect((await listed()).sort()).toEqual(["'=twin@example.com", "=twin@example.com"]);
  });
});

describe("remove-unsubscribed and a file's encoding", () => {
  const listedEmails = async () => {
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const emails = (await store.all()).map((signup) => signup.email);
    await store.close();
    return emails;
  };
  const addJose = async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    await store.add({ email: "jos\u00e9@example.com", emailKey: "jos\u00e9@example.com", source: "start" });
    await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start" });
    await store.close();
  };

  it("refuses a file in a legacy code page (every byte a Windows-1252 letter or sign can be), saying how to save it as UTF-8, and removes nobody", async () => {
    await addJose();
    const refused: string[] = [];
    for (let byte = 0x80; byte <= 0xff; byte++) {
      const file = path.join(dir, `unsubscribed-${byte}.csv`);
      // ada first, so that a file read in part would remove her.
      writeFileSync(
        file,
        Buffer.concat([Buffer.from("Email\nada@example.com\njos"), Buffer.from([byte]), Buffer.from("@example.com\n")]),
      );
      const failure: unknown = await run(["remove-unsubscribed", "--from", file], env).catch((error) => error);
      if (failure instanceof UsageError && failure.message.startsWith(`${file} is not UTF-8: line 3 is not.`)) {
        refused.push(byte.toString(16));
      }
    }
    expect(refused).toHaveLength(0x80);
    const file = path.join(dir, "unsubscribed.csv");
    writeFileSync(file, Buffer.from("Email\njos\u00e9@example.com\n", "latin1"));
    await expect(run(["remove-unsubscribed", "--from", file], env)).rejects.toThrow(
      /Save it as UTF-8 and run this again: in Excel, Save As "CSV UTF-8 \(Comma delimited\)"; .*Nothing was removed\.$/s,
    );
    expect((await listedEmails()).sort()).toEqual(["ada@example.com", "jos\u00e9@example.com"]);
  });

  it.each([
    ["Excel's Unicode text: UTF-16 (little-endian) with its byte-order mark, tab-separated", "utf-16le", "\t"],
    ["UTF-16 (big-endian) with its byte-order mark", "utf-16be", ","],
    ["a German Excel's CSV UTF-8: semicolons", "utf-8", ";"],
    ["tab-separated UTF-8", "utf-8", "\t"],
  ])("reads %s", async (_name, encoding, delimiter) => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    const emails = [
      "jos\u00e9@ex\u00e4mple.com",
      "\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a",
      "\u043f\u043e\u0447\u0442\u0430@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444",
      "o'brien@example.com",
    ];
    for (const email of [...emails, "stays@example.com"]) {
      const checked = checkEmail(email);
      if (!checked.ok) throw new Error(checked.reason);
      await store.add({ email: checked.email, emailKey: checked.key, source: "start" });
    }
    await store.close();
    const rows = [`Email Address${delimiter}Name`, ...emails.map((email) => `${email}${delimiter}Someone`)];
    const utf16 = (littleEndian: boolean) => {
      const bytes = Buffer.from(`\uFEFF${rows.join("\r\n")}\r\n`, "utf16le");
      return littleEndian ? bytes : bytes.swap16();
    };
    const file = path.join(dir, "unsubscribed.txt");
    writeFileSync(file, encoding === "utf-8" ? `\uFEFF${rows.join("\r\n")}\r\n` : utf16(encoding === "utf-16le"));
    await expect(run(["remove-unsubscribed", "--from", file], env)).resolves.toBe(
      `Removed 4 of the 4 addresses in ${file}; 0 were not on the list.`,
    );
    expect(await listedEmails()).toEqual(["stays@example.com"]);
  });

  it("refuses UTF-16 without its byte-order mark rather than find no address in it, and UTF-16 cut in half", async () => {
    await addJose();
    const cut = path.join(dir, "cut.txt");
    writeFileSync(cut, Buffer.from("\uFEFFEmail\njos\u00e9@example.com", "utf16le").subarray(0, -1));
    await expect(run(["remove-unsubscribed", "--from", cut], env)).rejects.toThrow(
      `${cut} starts as UTF-16 text but is not: it holds half a character.`,
    );
    const file = path.join(dir, "unsubscribed.txt");
    writeFileSync(file, Buffer.from("Email\tName\njos\u00e9@example.com\tJos\u00e9\n", "utf16le"));
    await expect(run(["remove-unsubscribed", "--from", file], env)).rejects.toThrow(
      new UsageError(
        `${file} holds NUL characters, as UTF-16 text without its byte-order mark does. Save it as UTF-8 and run this again: in Excel, Save As "CSV UTF-8 (Comma delimited)"; in LibreOffice, Save As "Text CSV" with the character set "Unicode (UTF-8)". Nothing was removed.`,
      ),
    );
  });
});

/** Every record in the store, as the commands read it. */
async function storedRecords() {
  const store = SqliteStore.openExisting(env.WAITLIST_DB!);
  const rows = await store.all();
  await store.close();
  return rows;
}

/** The seed, with Ada let in as wave 3 for the launch tool (let-in --launch-tool). */
async function seedLetIn() {
  await seed();
  const store = SqliteStore.openExisting(env.WAITLIST_DB!);
  await store.letIn("ada@example.com", { wave: 3, at: new Date(), createdAt: "2025-06-01T09:00:00.000Z", mail: false });
  await store.close();
}

describe("export --out: a file with every address, and a working leave link each", () => {
  const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

  it.each(["022", "002", "000", "277"])(
    "is this user's alone (0600) under umask %s, and so is an older export it replaces",
    async (mask) => {
      await seedLetIn();
      const fresh = path.join(dir, "launch.csv");
      const older = path.join(dir, "older.csv");
      writeFileSync(older, "an older export\n");
      chmodSync(older, 0o644);
      const umask = process.umask(parseInt(mask, 8));
      try {
        for (const out of [fresh, older]) {
          await expect(run(["export", "--record", "--format", "csv", "--out", out], env)).resolves.toMatch(
            /^Wrote .*: 3 signups as the store keeps them, a copy/,
          );
          await expect(run(["export", "--launch", "--format", "csv", "--out", out], launchEnv())).resolves.toMatch(
            /^Wrote .*: 1 address let in so far/,
          );
        }
      } finally {
        process.umask(umask);
      }
      expect([fresh, older].map(mode)).toEqual(["600", "600"]);
      for (const out of [fresh, older]) expect(readFileSync(out, "utf8")).toContain("ada@example.com");
    },
  );

  it("replaces the file whole or not at all: the old export stays until the new one is complete, and no scrap stays", async () => {
    await seed();
    const out = path.join(dir, "launch.csv");
    writeFileSync(out, "an older export\n");
    const rename = jest.spyOn(fs, "renameSync");
    try {
      // A crash just before the new file takes the old one's place: the old one is still whole.
      rename.mockImplementationOnce(() => {
        expect(readFileSync(out, "utf8")).toBe("an older export\n");
        throw Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" });
      });
      await expect(run(["export", "--record", "--format", "csv", "--out", out], env)).rejects.toThrow("EIO");
      expect(readFileSync(out, "utf8")).toBe("an older export\n");
      expect(readdirSync(dir).filter((name) => name.includes("launch"))).toEqual(["launch.csv"]);
      // What takes its place is the whole export, in the same folder, this user's alone from the start.
      let renamed: { from: string; mode: string; content: string } | undefined;
      rename.mockImplementationOnce((from, to) => {
        renamed = { from: String(from), mode: mode(String(from)), content: readFileSync(from, "utf8") };
        jest.requireActual<typeof fs>("node:fs").renameSync(from, to);
      });
      await run(["export", "--record", "--format", "csv", "--out", out], env);
      expect(renamed).toEqual({ from: expect.stringMatching(/launch\.csv/), mode: "600", content: expect.any(String) });
      expect(path.dirname(renamed!.from)).toBe(dir);
      expect(renamed!.content).toBe(readFileSync(out, "utf8"));
      expect(readFileSync(out, "utf8")).toContain("=2*5@example.com");
      expect(readdirSync(dir).filter((name) => name.includes("launch"))).toEqual(["launch.csv"]);
    } finally {
      rename.mockRestore();
    }
  });

  it("writes through a link to the file it names, and refuses a folder, a device or a missing folder", async () => {
    await seed();
    const real = path.join(dir, "exports", "launch.csv");
    mkdirSync(path.dirname(real));
    writeFileSync(real, "an older export\n");
    symlinkSync(real, path.join(dir, "latest.csv"));
    await run(["export", "--record", "--format", "csv", "--out", path.join(dir, "latest.csv")], env);
    expect(readFileSync(real, "utf8")).toContain("ada@example.com");
    expect(fs.lstatSync(path.join(dir, "latest.csv")).isSymbolicLink()).toBe(true);
    expect(mode(real)).toBe("600");
    for (const [out, message] of [
      [path.join(dir, "exports"), `--out ${path.join(dir, "exports")} is not a file;`],
      ["/dev/null", "--out /dev/null is not a file;"],
      [path.join(dir, "nowhere", "launch.csv"), `--out ${path.join(dir, "nowhere", "launch.csv")}: there is no folder`],
      ["", "Say which file after --out"],
    ]) {
      const refused: unknown = await run(["export", "--record", "--format", "csv", "--out", out!], env).catch(
        (error) => error,
      );
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toContain(message);
    }
  });
});

describe("resend-pending and the cap on e-mails per mailbox", () => {
  it.each([
    ["1", 1],
    ["4", 4],
  ])(
    "sends one mailbox as many as WAITLIST_MAILBOX_DAILY_MAILS=%s allows, as the running site does",
    async (cap, sent) => {
      const store = new SqliteStore(env.WAITLIST_DB!);
      // Three spellings and the mailbox's own address, which has one of the cap's e-mails set apart (issue 52).
      for (const email of ["ada+1@gmail.com", "a.da@gmail.com", "ADA@googlemail.com", "ada@gmail.com"]) {
        await store.add({ email, emailKey: email.toLowerCase(), source: "start" });
      }
      await store.close();
      // Through a mail server: resend-pending sends through SMTP_URL only.
      const smtp = await startSmtpServer();
      try {
        const settings = { SMTP_URL: smtp.url, WAITLIST_MAILBOX_DAILY_MAILS: cap };
        await expect(run(["resend-pending"], { ...env, ...settings })).resolves.toMatch(
          new RegExp(`^Sent ${sent} confirmations? \\(via .*\\); 0 still pending\\.`),
        );
        expect(smtp.deliveries).toHaveLength(sent);
      } finally {
        await smtp.close();
      }
    },
  );

  it("without SMTP_URL, sends nothing, writes no file and records nothing as sent, saying what to set", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start" });
    await store.close();
    const outbox = path.join(dir, "outbox");
    await expect(run(["resend-pending"], { ...env, OUTBOX_DIR: outbox })).rejects.toThrow(
      /^Nothing sent: set SMTP_URL to the mail server the site sends through\./,
    );
    expect(fs.existsSync(outbox)).toBe(false);
    const after = SqliteStore.openExisting(env.WAITLIST_DB!);
    expect((await after.all()).map((row) => row.confirmationSentAt)).toEqual([null]);
    await after.close();
  });
});

describe("removing from the command line deletes the outbox's copies too, as a leave does", () => {
  /** Signups whose confirmations npm start, without SMTP_URL, wrote to the outbox. */
  const mailed = async (emails: string[]) => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    for (const email of emails) await store.add({ email, emailKey: email, source: "start", at: new Date() });
    await store.close();
    const outbox = { ...env, OUTBOX_DIR: path.join(dir, "outbox") };
    const mailer = createMailer(mailConfig(readEnv(outbox)));
    for (const email of emails) {
      await mailer.send({
        to: email,
        subject: "Confirm",
        text: "-",
        html: "-",
        messageId: `<${email}.test>`,
        headers: {},
      });
    }
    mailer.close();
    expect(readdirSync(outbox.OUTBOX_DIR)).toHaveLength(emails.length);
    return outbox;
  };

  it("remove and remove-unsubscribed", async () => {
    const outbox = await mailed(["gone@example.com", "also-gone@example.com", "stays@example.com"]);
    await run(["remove", "gone@example.com"], outbox);
    writeFileSync(path.join(dir, "unsubscribed.csv"), "Email Address\nalso-gone@example.com\n");
    await run(["remove-unsubscribed", "--from", path.join(dir, "unsubscribed.csv")], outbox);
    const left = readdirSync(outbox.OUTBOX_DIR).map((name) => readFileSync(path.join(outbox.OUTBOX_DIR, name), "utf8"));
    expect(left).toHaveLength(1);
    expect(left[0]).toContain("To: stays@example.com");
  });

  it("prune", async () => {
    const outbox = await mailed(["never-confirmed@example.com"]);
    await run(["prune", "--unconfirmed-older-than", "0h"], outbox);
    expect(readdirSync(outbox.OUTBOX_DIR)).toEqual([]);
  });
});

describe("leavers: who to take off the launch mailing tool (issue 43)", () => {
  const members = (rows: string[]) => {
    const file = path.join(dir, "members.csv");
    writeFileSync(file, ["Email Address,First Name", ...rows.map((email) => `${email},x`)].join("\n"));
    return file;
  };

  it("names the tool's members who left since the export, from a digest, never from an address kept", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    const at = new Date("2026-11-01T09:00:00Z");
    // Confirmed members, whom the launch tool got with wave 1: only such a leaver leaves a digest to match.
    for (const email of ["ada@example.com", "grace@example.com", "hedy@example.com"]) {
      await store.add({ email, emailKey: email, source: "start", at });
      await store.confirm(email, { createdAt: at.toISOString(), at, privacyPolicy: null });
      await store.letIn(email, { wave: 1, at, createdAt: at.toISOString(), mail: false });
    }
    await store.close();
    await run(["remove", "Grace@Example.com"], env);
    const file = members(["ada@example.com", "GRACE@example.com", "hedy@example.com", "not an address"]);
    const named = await run(["leavers", "--from", file], env);
    expect(named.split("\n")).toEqual([
      `1 of the 3 members in ${file} left the waitlist: remove them from your mailing tool.`,
      "  line 3: GRACE@example.com",
      expect.stringMatching(/^ {2}line 5: "not an address" not read: /),
    ]);
    // What the store kept of Grace: a departure and a digest, nothing that names her.
    const reader = SqliteStore.openExisting(env.WAITLIST_DB!);
    expect(JSON.stringify(await reader.leaverDigests(new Date(0)))).not.toMatch(/grace/i);
    await reader.close();
    // Since a later day, none; to a file the tool imports, 0600.
    expect(await run(["leavers", "--from", file, "--since", "2999-01-01"], env)).toMatch(/^0 of the 3 members/);
    const out = path.join(dir, "to-remove.csv");
    await run(["leavers", "--from", file, "--out", out], env);
    expect(readFileSync(out, "utf8")).toBe("\uFEFFEmail Address\nGRACE@example.com\n");
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it("forgets them once their days are over: the day's pass drops the digests", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    const { createdAt } = await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start" });
    await store.confirm("ada@example.com", { createdAt, at: new Date(), privacyPolicy: null });
    await store.letIn("ada@example.com", { wave: 1, at: new Date(), createdAt, mail: false });
    await store.close();
    await run(["remove", "ada@example.com"], env);
    const file = members(["ada@example.com"]);
    expect(await run(["leavers", "--from", file], env)).toMatch(/^1 of the 1 members/);
    const later = SqliteStore.openExisting(env.WAITLIST_DB!);
    await later.forgetLeaverDigestsBefore(new Date(Date.now() + 1_000));
    await later.close();
    expect(await run(["leavers", "--from", file], env)).toMatch(/^0 of the 1 members/);
  });
});

describe("export --launch: the file for the launch mail tool, and only what it needs (issue 51)", () => {
  const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);
  const read = (file: string, format: string) => {
    const text = readFileSync(file, "utf8");
    return (format === "json" ? JSON.parse(text) : parse(text, { columns: true, bom: true })) as Record<
      string,
      string
    >[];
  };

  it("writes nothing while nobody is let in, or for a wave nobody listed is in", async () => {
    await seed();
    const out = path.join(dir, "launch.csv");
    await expect(run(["export", "--launch", "--format", "csv", "--out", out], launchEnv())).rejects.toThrow(
      new UsageError(
        "Nobody is let in for the launch tool yet: the tool gets those let in for it, each with their wave. let-in --count N --launch-tool --format csv --out FILE lets the next in and writes their file; nothing was written.",
      ),
    );
    await seedLetIn();
    const wave = ["export", "--launch", "--format", "csv", "--out", out, "--wave"];
    await expect(run([...wave, "2"], launchEnv())).rejects.toThrow(/^Nobody listed is in wave 2: /);
    expect(readdirSync(dir).filter((name) => name.includes("launch"))).toEqual([]);
    await expect(run([...wave, "3"], launchEnv())).resolves.toMatch(/: 1 address of wave 3, each with/);
  });

  it.each([
    ["csv", ["email", "leave_url", "wave"]],
    ["json", ["email", "leaveUrl", "wave"]],
  ])("has in %s each address let in, its own leave link and its wave, and no other column", async (format, names) => {
    await seedLetIn();
    const out = path.join(dir, `launch.${format}`);
    await expect(run(["export", "--launch", "--format", format, "--out", out], launchEnv())).resolves.toBe(
      [
        `Wrote ${out}: 1 address let in so far, each with its own leave link and wave, for ${tool}. Delete it once the tool has it.`,
        `Delete each wave from ${tool} within 30 days of its e-mail, as the Privacy Policy promises: once its bounces and unsubscribes are home (remove-unsubscribed) and those who left since are off it (leavers).`,
      ].join("\n"),
    );
    const rows = read(out, format);
    // Byron's mail failed and =2*5 never confirmed: neither is let in, nor on it.
    expect(rows.map((row) => Object.keys(row))).toEqual([names]);
    const [email, link, wave] = names.map((name) => rows[0]![name]);
    expect(email).toBe("ada@example.com");
    expect(wave).toBe(format === "json" ? 3 : "3");
    expect(link).toMatch(siteLeaveUrl());
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const secret = await store.secret("leave", () => "never made here");
    await store.close();
    expect(verifyLeaveToken(new URL(link!).searchParams.get("token"), secret)).toEqual({
      email: "ada@example.com",
      key: "ada@example.com",
      createdAt: "2025-06-01T09:00:00.000Z",
    });
    expect(mode(out)).toBe("600");
  });

  it("names each wave of the file the tool should have deleted by now, more than 30 days after it went there (issue 61)", async () => {
    await seed();
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000 - 60_000);
    await store.letIn("ada@example.com", {
      wave: 1,
      at: daysAgo(40),
      createdAt: "2025-06-01T09:00:00.000Z",
      mail: false,
    });
    await store.close();
    const out = path.join(dir, "launch.csv");
    const said = (await run(["export", "--launch", "--format", "csv", "--out", out, "--wave", "1"], launchEnv())).split(
      "\n",
    );
    expect(said.slice(1)).toEqual([
      `Delete wave 1 from ${tool} within 30 days of its e-mail, as the Privacy Policy promises: once its bounces and unsubscribes are home (remove-unsubscribed) and those who left since are off it (leavers).`,
      `Wave 1 went to ${tool} on ${daysAgo(40).toISOString().slice(0, 10)}, 40 days ago: delete it there now if you have not.`,
    ]);
    // And stats, every time it runs.
    expect(await run(["stats"], env)).toContain(
      `  Delete wave 1 from the launch mail tool if you have not: it went there on ${daysAgo(40).toISOString().slice(0, 10)}, 40 days ago, and the Privacy Policy lets the tool keep a wave 30 days after its e-mail at most.`,
    );
  });

  it("refuses to write until the Privacy Policy the site serves names the tool, leaving an older file and the store as they were (issue 61)", async () => {
    await seedLetIn();
    const out = path.join(dir, "launch.csv");
    writeFileSync(out, "an older list\n");
    const records = await storedRecords();
    const asked = policySite.requests();
    const launch = ["export", "--launch", "--format", "csv", "--out", out];
    const page = `${policySite.url}/privacy-policy/`;
    const nameIt =
      'name it in the Privacy Policy\'s frontmatter (content/legal/privacy-policy.mdx, the field launchMailTool: its legal name and country, such as Intuit Inc. (Mailchimp, United States)), with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), deploy the site, and run this again; nothing was written.';
    policySite.names(undefined);
    await expect(run(launch, launchEnv())).rejects.toThrow(
      new UsageError(
        `The Privacy Policy at ${page} names no launch mail tool, and the list goes to none before the policy names it: ${nameIt}`,
      ),
    );
    policySite.names([tool, "Brevo SAS (France)"]);
    await expect(run(launch, launchEnv())).rejects.toThrow(
      new UsageError(
        `The Privacy Policy at ${page} names more than one launch mail tool (${tool}; Brevo SAS (France)); the list goes to one only: ${nameIt}`,
      ),
    );
    // A page that is not there, whatever a LAUNCH_MAIL_TOOL left in the shell says: the site is asked, not the shell.
    policySite.names(null);
    await expect(run(launch, { ...launchEnv(), LAUNCH_MAIL_TOOL: tool })).rejects.toThrow(
      new UsageError(
        `The Privacy Policy at ${page} could not be read (it answered 404), so which launch mail tool it names is not known, and the list goes to none it does not name. Check that SITE_URL is the site's address and the site is up, and run this again; nothing was written.`,
      ),
    );
    // No site at SITE_URL at all.
    const nobody = `http://127.0.0.1:${await freePort()}`;
    await expect(run(launch, { ...launchEnv(), SITE_URL: nobody })).rejects.toThrow(
      new UsageError(
        `The Privacy Policy at ${nobody}/privacy-policy/ could not be read (ECONNREFUSED), so which launch mail tool it names is not known, and the list goes to none it does not name. Check that SITE_URL is the site's address and the site is up, and run this again; nothing was written.`,
      ),
    );
    expect(readFileSync(out, "utf8")).toBe("an older list\n");
    expect(readdirSync(dir).filter((name) => name.includes("launch"))).toEqual(["launch.csv"]);
    // Nothing written to the store: the same records, and not even the links' secret made (the one made here is the
    // first).
    expect(await storedRecords()).toEqual(records);
    const first = "made first by this test".padEnd(48, ".");
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    await expect(store.secret("leave", () => first)).resolves.toBe(first);
    await store.close();
    // Asked once a run: the page the site serves, not a copy of it.
    expect(policySite.requests() - asked).toBe(3);
  });

  it("goes only to a file, and takes no option of the record", async () => {
    await seed();
    await expect(run(["export", "--launch", "--format", "csv"], launchEnv())).rejects.toThrow(
      "Say where the launch list goes: --out FILE.",
    );
    const out = path.join(dir, "launch.csv");
    for (const extra of [["--order", "invites"], ["--leave-urls"]]) {
      await expect(run(["export", "--launch", "--format", "csv", "--out", out, ...extra], launchEnv())).rejects.toThrow(
        "export --launch takes only --format, --out and --wave",
      );
    }
    expect(readdirSync(dir).filter((name) => name.includes("launch"))).toEqual([]);
  });

  it("end to end, through npm run waitlist: exits 2 with one paragraph and no file while the site's policy names no tool, then writes it", async () => {
    await seedLetIn();
    const out = path.join(dir, "launch.csv");
    const waitlist = () =>
      promisify(execFile)(
        process.execPath,
        ["--import", "tsx", path.join(__dirname, "main.ts"), "export", "--launch", "--format", "csv", "--out", out],
        { env: { ...process.env, ...launchEnv() } },
      ).then(
        ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    policySite.names(undefined);
    const refused = await waitlist();
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toMatch(
      /^The Privacy Policy at [^\n]* names no launch mail tool[^\n]*nothing was written\.\n$/,
    );
    expect(readdirSync(dir).filter((name) => name.includes("launch"))).toEqual([]);
    policySite.names(tool);
    await expect(waitlist()).resolves.toMatchObject({ code: 0 });
    const [header, row, end] = readFileSync(out, "utf8").split(/\r?\n/);
    expect([header, end]).toEqual(["\uFEFFemail,leave_url,wave", ""]);
    const [email, link, wave] = row!.split(",");
    expect([email, wave]).toEqual(["ada@example.com", "3"]);
    expect(link).toMatch(siteLeaveUrl());
    expect(mode(out)).toBe("600");
  }, 30_000);
});

describe("export --record --email: one person's row, for an access or portability request (issue 61)", () => {
  const everyone = async () =>
    JSON.parse(await run(["export", "--record", "--format", "json"], env)) as Record<string, unknown>[];

  it("writes exactly that person's row, found by the address's canonical form, as the whole export has it", async () => {
    await seed();
    const ada = (await everyone())[0]!;
    for (const spelling of ["ada@example.com", "  ADA@EXAMPLE.com ", "ada@ＥXAMPLE。com"]) {
      const rows = JSON.parse(await run(["export", "--record", "--format", "json", "--email", spelling], env));
      expect(rows).toEqual([ada]);
    }
    // CSV as the whole export writes it, the formula escaped for a spreadsheet; with --leave-urls, its link too.
    const csv = parse(await run(["export", "--record", "--format", "csv", "--email", "=2*5@EXAMPLE.com"], env), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    expect(csv.map((row) => [row.email, row.source])).toEqual([["'=2*5@example.com", "start"]]);
    const linked = JSON.parse(
      await run(["export", "--record", "--format", "json", "--email", "ada@example.com", "--leave-urls"], env),
    ) as { leaveUrl: string }[];
    expect(linked).toEqual([
      { ...ada, leaveUrl: expect.stringMatching(/^https:\/\/jointandem\.app\/waitlist\/leave\?token=/) },
    ]);
  });

  it("writes it to a file that says it is a copy to delete once the request is answered", async () => {
    await seed();
    const out = path.join(dir, "ada.json");
    await expect(
      run(["export", "--record", "--format", "json", "--email", "Ada@Example.com", "--out", out], env),
    ).resolves.toBe(
      `Wrote ${out}: the row of ada@example.com as the store keeps it, a copy for the question or request it answers. Delete it once that is answered, within a month at most: the store is the record, and no leave, remove or 30-day pass reaches this copy.`,
    );
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual([(await everyone())[0]]);
    expect((statSync(out).mode & 0o777).toString(8)).toBe("600");
  });

  it("says in one line that an address is not on the list, writes nothing, and exits 1", async () => {
    await seed();
    const out = path.join(dir, "gone.json");
    await run(["remove", "ada@example.com"], env);
    for (const address of ["ada@example.com", "nobody@example.com"]) {
      const asked = run(["export", "--record", "--format", "json", "--email", address, "--out", out], env);
      await expect(asked).rejects.toThrow(
        new NotListedError(`${address} is not on the waitlist: nothing was written.`),
      );
    }
    expect(existsSync(out)).toBe(false);
    const { code, stdout, stderr } = await runWaitlist(
      ["export", "--record", "--format", "csv", "--email", "nobody@example.com"],
      env,
    );
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: "nobody@example.com is not on the waitlist: nothing was written.\n",
    });
  }, 30_000);

  it("leaves a restricted entry out of a copy of the whole list, and says so; its own row goes by --email (issue 67)", async () => {
    await seed();
    const store = new SqliteStore(env.WAITLIST_DB!);
    await store.restrict("ada@example.com", new Date());
    await store.close();
    const out = path.join(dir, "all.json");
    const said = await run(["export", "--record", "--format", "json", "--out", out], env);
    expect(said).toMatch(
      /\n1 restricted entry left out: export --record --email ADDRESS writes one, to answer that person\.$/,
    );
    const emails = (JSON.parse(readFileSync(out, "utf8")) as { email: string }[]).map(({ email }) => email);
    expect(emails).not.toContain("ada@example.com");
    expect(emails.length).toBeGreaterThan(0);
    const own = JSON.parse(await run(["export", "--record", "--format", "json", "--email", "ada@example.com"], env));
    expect(own.map(({ email }: { email: string }) => email)).toEqual(["ada@example.com"]);
  });

  it("says what is kept of an address with no row: its mailbox's fingerprint after a bounce, and until when (issue 67)", async () => {
    await seed();
    const store = new SqliteStore(env.WAITLIST_DB!);
    const secret = await store.secret("leave", () => "the site's own secret");
    const bounced = new Date(Date.now() - 86_400_000);
    const until = new Date(bounced.getTime() + 180 * 86_400_000);
    // Another spelling of the same mailbox bounced: the fingerprint is the mailbox's, so it is this person's too.
    await store.suppress(suppressionFingerprint(secret, "nobody+news@example.com"), until, "bounce");
    await store.suppress(suppressionFingerprint(secret, "ada@example.com"), until, "complaint");
    // Grace's wave went to the launch mailing service: her leave keeps a fingerprint of her address to find her there.
    await store.add({ email: "grace@example.com", emailKey: "grace@example.com", source: "start", at: bounced });
    await store.confirm("grace@example.com", { createdAt: bounced.toISOString(), at: bounced, privacyPolicy: null });
    await store.letIn("grace@example.com", { wave: 1, at: bounced, createdAt: bounced.toISOString(), mail: false });
    await store.close();
    await run(["remove", "grace@example.com"], env);
    const today = new Date().toISOString().slice(0, 10);
    const ends = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
    await expect(run(["export", "--record", "--format", "json", "--email", "Grace@example.com"], env)).rejects.toThrow(
      new NotListedError(
        `Grace@example.com is not on the waitlist: nothing was written, as there is no row. Kept of it all the same:\n  A keyed fingerprint of this address, kept with its leave of ${today} until ${ends} because it left after its wave went to the launch mailing service: it finds the person there to take them off too. It cannot be turned back into the address.`,
      ),
    );
    const kept = `A keyed fingerprint of this address or of its mailbox, kept until ${until.toISOString().slice(0, 10)} because mail to it bounced for good or was marked as spam (180 days from the latest): no e-mail goes to it until then. It cannot be turned back into the address.`;
    await expect(run(["export", "--record", "--format", "json", "--email", "nobody@example.com"], env)).rejects.toThrow(
      new NotListedError(
        `nobody@example.com is not on the waitlist: nothing was written, as there is no row. Kept of it all the same:\n  ${kept}`,
      ),
    );
    const out = path.join(dir, "ada.json");
    await expect(
      run(["export", "--record", "--format", "json", "--email", "ada@example.com", "--out", out], env),
    ).resolves.toMatch(
      new RegExp(`\\.\nAlso kept of this person, outside the row:\n  ${kept.replace(/[.()]/g, "\\$&")}$`),
    );
    await expect(run(["export", "--record", "--format", "json", "--email", "other@example.com"], env)).rejects.toThrow(
      new NotListedError("other@example.com is not on the waitlist: nothing was written."),
    );
  });

  it("refuses an address it cannot read, and the options of a whole list or of the launch tool", async () => {
    await seed();
    await expect(run(["export", "--record", "--format", "json", "--email", "ada"], env)).rejects.toThrow(
      new UsageError('"ada" is not a valid address: The e-mail address needs a name, an @ and a domain.'),
    );
    for (const extra of [["--wave", "1"], ["--not-let-in"], ["--order", "invites"]]) {
      await expect(
        run(["export", "--record", "--format", "json", "--email", "ada@example.com", ...extra], env),
      ).rejects.toThrow(
        new UsageError(
          "export --record --email ADDRESS writes that one person's row: leave out --wave, --not-let-in and --order.",
        ),
      );
    }
    const launch = ["export", "--launch", "--format", "csv", "--out", path.join(dir, "launch.csv")];
    await expect(run([...launch, "--email", "ada@example.com"], launchEnv())).rejects.toThrow(
      /^--email goes with --record: one person's row/,
    );
  });
});

describe("export with invites: launch waves (issue 44)", () => {
  it("has each signup's code, who invited it and how many it brought who confirmed; --order invites puts those first", async () => {
    const store = new SqliteStore(env.WAITLIST_DB!);
    const at = (n: number) => new Date(Date.UTC(2026, 10, 1, 9, n));
    const join = async (email: string, n: number, mailbox: string, invitedBy?: string) => {
      await store.add({ email, emailKey: email, source: "start", at: at(n), mailboxDigest: mailbox, invitedBy });
      return (await store.confirm(email, { createdAt: at(n).toISOString(), at: at(n + 1), privacyPolicy: null }))!
        .inviteCode;
    };
    await join("first@example.com", 0, "m-first");
    const ada = await join("ada@example.com", 1, "m-ada");
    await join("bob@example.com", 2, "m-bob", ada);
    await join("bob+2@example.com", 3, "m-bob", ada);
    await join("carl@example.com", 4, "m-carl", ada);
    await store.close();
    const rows = (order: string[] = []) =>
      run(["export", "--record", "--format", "json", ...order], env).then(
        (json) =>
          JSON.parse(json) as {
            email: string;
            inviteCode: string;
            invitedBy: string | null;
            confirmedInvites: number;
          }[],
      );
    expect((await rows()).map((row) => [row.email, row.invitedBy === ada, row.confirmedInvites])).toEqual([
      ["first@example.com", false, 0],
      ["ada@example.com", false, 2],
      ["bob@example.com", true, 0],
      ["bob+2@example.com", true, 0],
      ["carl@example.com", true, 0],
    ]);
    expect((await rows(["--order", "invites"])).map((row) => row.email)).toEqual([
      "ada@example.com",
      "first@example.com",
      "bob@example.com",
      "bob+2@example.com",
      "carl@example.com",
    ]);
    await expect(run(["export", "--record", "--format", "json", "--order", "size"], env)).rejects.toThrow(
      /Unknown order "size"/,
    );
    // stats: the top inviters by code and count, and never an invitee's address.
    const stats = await run(["stats"], env);
    expect(stats).toContain(
      `Invites: 2 confirmed signups came through one (40.0 % of the confirmed)\n  ${ada}        2`,
    );
    expect(stats).not.toMatch(/bob|carl/);
  });
});
