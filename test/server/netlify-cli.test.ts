import { noteSigner } from "../../waitlist/leave-signer";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { load } from "cheerio";
import { parse } from "csv-parse/sync";
import { projectFolders } from "../../config/folders";
import { readPolicySources, policyRecords } from "../../waitlist/policies";
import { blobsStore } from "../../waitlist/stores/blobs-store";
import { createMailer } from "../../waitlist/mail/mailer";
import { run } from "../../cli/run";
import { NetlifySetupError } from "../../cli/netlify-access";
import type { WaitlistStats } from "../../waitlist/reports/stats";
import { localBlobsSite, startLocalBlobs, type LocalBlobs } from "../support/blobs";
import { startNetlifyApi, type NetlifyApiStandIn } from "../support/netlify-api";
import { verifyLeaveToken } from "../../waitlist/tokens";
import { leaveLinks, startSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";
import { runWaitlist } from "../support/process";
import type { Signup } from "../../waitlist/signup-life/types";
import { startPolicySite, type PolicySite } from "../support/policy-site";

/*
 * npm run waitlist -- … --netlify: the founders' commands against the Netlify
 * deployment's store, from their own machine, through Netlify's API (a
 * stand-in that passes the Blobs API on to @netlify/blobs' local server).
 */

jest.setTimeout(patience(30_000));

const { siteID, token } = localBlobsSite;
let blobs: LocalBlobs;
let api: NetlifyApiStandIn;
let env: NodeJS.ProcessEnv;
/** The site the founders' SITE_URL names, whose Privacy Policy the launch commands ask which tool it names. */
let policySite: PolicySite;
beforeAll(async () => {
  policySite = await startPolicySite();
});
afterAll(() => policySite.stop());
/** The founders' shell for the launch commands: env, with the site whose policy names the tool. */
const launchShell = () => ({ ...env, SITE_URL: policySite.url });
/** A leave link to that site. */
const siteLeaveUrl = () => expect.stringMatching(new RegExp(`^${policySite.url}/waitlist/leave\\?token=[\\w-]+$`));
beforeEach(async () => {
  blobs = await startLocalBlobs();
  api = await startNetlifyApi({ siteId: siteID, token, blobsUrl: blobs.url });
  env = { NETLIFY_API_TOKEN: token, NETLIFY_SITE_ID: siteID, NETLIFY_API_URL: api.url };
});
afterEach(async () => {
  await api.close();
  await blobs.stop();
});

/** The Netlify store as the functions have filled it: 30 signups from a TikTok link, Ada, and one that left. */
async function seed() {
  const store = blobsStore(blobs.store());
  const at = (minutes: number) => new Date(Date.parse("2026-11-20T00:00:00Z") + minutes * 60_000);
  await Promise.all(
    Array.from({ length: 30 }, (_, n) =>
      store.add({
        email: `fan${n}@example.com`,
        emailKey: `fan${n}@example.com`,
        source: "netlify",
        at: at(n + 10),
        attribution: { ...noTags, utmSource: "tiktok", utmCampaign: "launch", landingPath: "/" },
      }),
    ),
  );
  for (let n = 0; n < 30; n++) await store.markConfirmationSent(`fan${n}@example.com`, at(n + 11));
  await store.add({ email: "Ada@example.com", emailKey: "ada@example.com", source: "netlify", at: at(1) });
  await store.add({ email: "gone@example.com", emailKey: "gone@example.com", source: "netlify", at: at(2) });
  await store.remove("gone@example.com", "link", at(3));
  await store.fold();
  return store;
}
const noTags = {
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
  utmContent: null,
  utmTerm: null,
  ref: null,
  landingPath: null,
};

describe("npm run waitlist -- … --netlify", () => {
  it("exports the Netlify store through the API: one row per address, oldest first, with confirmations", async () => {
    await seed();
    api.calls.length = 0;
    const rows = parse(await run(["export", "--record", "--format", "csv", "--netlify"], env), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    expect(rows).toHaveLength(31);
    expect(rows[0]).toMatchObject({ email: "Ada@example.com", source: "netlify", confirmation_sent_at: "" });
    expect(rows[1]).toMatchObject({ email: "fan0@example.com", utm_source: "tiktok", utm_campaign: "launch" });
    expect(rows[1]!.confirmation_sent_at).toBe("2026-11-20T00:11:00.000Z");
    // The site's check, then the ledger's list and its one blob, then the notes still pending (Ada's): no per-signup reads.
    expect(api.calls.length).toBeLessThanOrEqual(6);
    expect(api.calls.every((call) => call.authorization === `Bearer ${token}`)).toBe(true);
  });

  it("answers one person's request by their key: their row, read without the ledger or any other signup (issue 61)", async () => {
    await seed();
    const everyone = JSON.parse(await run(["export", "--record", "--format", "json", "--netlify"], env)) as unknown[];
    await blobs.settled();
    blobs.operations.length = 0;
    api.calls.length = 0;
    const args = ["export", "--record", "--format", "json", "--netlify", "--email"];
    await expect(run([...args, "ADA@example.com"], env).then((json) => JSON.parse(json) as unknown)).resolves.toEqual([
      everyone[0],
    ]);
    await blobs.settled();
    // The site's check, then the store's layout and key, Ada's record (her row, then her invites) and what is held of
    // her address by key (the fingerprints' key, none here: so the links' secret it would be made from, none either,
    // and nothing written): no list, no ledger.
    expect(api.calls.length).toBeLessThanOrEqual(8);
    const read = blobs.operations.map(
      ({ type, url }) => `${type} ${new URL(url, "http://blobs").pathname.split(":waitlist/")[1]}`,
    );
    expect(read).toEqual([
      "get settings/layout",
      "get settings/record-secret",
      expect.stringMatching(/^get records\/\w+$/),
      "get settings/fingerprint-secret",
      "get settings/leave-secret",
      expect.stringMatching(/^get records\/\w+$/),
    ]);
    await expect(run([...args, "gone@example.com"], env)).rejects.toThrow(
      "gone@example.com is not on the waitlist: nothing was written.",
    );
  });

  it("counts and gives the same stats as the self-hosted store: confirmations and departures too", async () => {
    await seed();
    await expect(run(["count", "--netlify"], env)).resolves.toBe(
      "31 addresses on the waitlist: 0 confirmed, 31 not (yet).\nConfirmation e-mails: 30 sent, 1 pending, 0 refused by the mail server.",
    );
    const stats = JSON.parse(await run(["stats", "--json", "--netlify", "--days", "366"], env)) as WaitlistStats;
    expect(stats.total).toBe(31);
    expect(stats.sources[0]).toEqual({ name: "tiktok", signups: 30, percent: 96.8, confirmed: 0, confirmedPercent: 0 });
    expect(stats.confirmations).toEqual({ sent: 30, pending: 1, failed: 0, lastError: null });
    expect(stats.left).toBe(1);
    expect(await run(["stats", "--netlify"], env)).toMatch(/^Waitlist \(Netlify site jointandem\): 31 signups/);
  });

  it("removes an address, as its leave link does", async () => {
    await seed();
    await expect(run(["remove", "ADA@example.com", "--netlify"], env)).resolves.toBe(
      "Removed Ada@example.com (on the list since 2026-11-20T00:01:00.000Z); any confirmation still owed to it is cancelled.",
    );
    await expect(run(["count", "--netlify"], env)).resolves.toMatch(/^30 addresses/);
  });

  it("deletes the removed address's mail from this machine's outbox too (issue 52)", async () => {
    await seed();
    // An outbox an earlier command wrote on the founder's machine, with mail to Ada and to a fan.
    const outboxDir = mkdtempSync(path.join(os.tmpdir(), "netlify-cli-outbox-"));
    try {
      const mailer = createMailer({ from: "hello@jointandem.app", outboxDir });
      for (const to of ["Ada@example.com", "fan1@example.com"]) {
        await mailer.send({ to, subject: "Confirm", text: "-", html: "-", messageId: `<${to}.test>`, headers: {} });
      }
      mailer.close();
      await run(["remove", "ADA@example.com", "--netlify"], { ...env, OUTBOX_DIR: outboxDir });
      const left = readdirSync(outboxDir).map((name) => readFileSync(path.join(outboxDir, name), "utf8"));
      expect(left).toHaveLength(1);
      expect(left[0]).toContain("To: fan1@example.com");
    } finally {
      rmSync(outboxDir, { recursive: true, force: true });
    }
  });

  it("sends the confirmations still owed through this machine's mail server, with the leave links the site signs", async () => {
    await seed();
    const smtp = await startSmtpServer();
    try {
      await expect(run(["resend-pending", "--netlify"], { ...env, SMTP_URL: smtp.url })).resolves.toBe(
        `Sent 1 confirmation (via ${smtp.url}); 0 still pending.`,
      );
      expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["Ada@example.com"]]);
      const store = blobsStore(blobs.store());
      const secret = await store.secret("leave", () => "never made here".padEnd(32, "x"));
      const token = new URL(leaveLinks(smtp.deliveries[0]!.mail).text).searchParams.get("token");
      expect(verifyLeaveToken(token, secret)?.email).toBe("Ada@example.com");
      await expect(run(["count", "--netlify"], env)).resolves.toMatch(/31 sent, 0 pending/);
    } finally {
      await smtp.close();
    }
  });

  it("announces a policy's change on the Blobs store to each confirmed member once, and a second run mails nobody", async () => {
    const store = await seed();
    const ada = (await store.all()).find((row) => row.emailKey === "ada@example.com")!;
    await store.confirm("ada@example.com", { createdAt: ada.createdAt, at: new Date(), privacyPolicy: null });
    const smtp = await startSmtpServer();
    try {
      const policies = policyRecords(readPolicySources(projectFolders.legal));
      const date = policies.find((record) => record.slug === "privacy-policy")!.updates[0]!.date;
      const settings = {
        ...env,
        SMTP_URL: smtp.url,
        CONTROLLER_NAME: "Tandem Labs GmbH",
        CONTROLLER_ADDRESS: "Example Street 1, 10115 Berlin, Germany",
      };
      const announce = ["announce-policy-change", "--netlify", "--policy", "privacy-policy", "--date", date];
      await run(announce, settings);
      expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["Ada@example.com"]]);
      expect(smtp.deliveries[0]!.mail.text).toContain("Example Street 1, 10115 Berlin, Germany");
      // The same announcement again: the record says she had it.
      await run(announce, settings);
      expect(smtp.deliveries).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });

  it("refuses to send with another secret than Netlify's functions sign with, and says which to use", async () => {
    await seed();
    const store = blobsStore(blobs.store());
    await noteSigner(store.blobs, "the-secret-in-netlifys-environment-xx");
    // With a mail server, as resend-pending needs since issue 52: what stops it is the secret.
    const smtp = await startSmtpServer();
    try {
      await expect(run(["resend-pending", "--netlify"], { ...env, SMTP_URL: smtp.url })).rejects.toThrow(
        new NetlifySetupError(
          "Netlify's functions sign leave links with the WAITLIST_SECRET of Netlify's environment: set the same value in your shell.",
        ),
      );
      expect(smtp.deliveries).toEqual([]);
      // Nor is anyone let in with a wave whose links the site would not take.
      await store.confirm("fan3@example.com", {
        createdAt: "2026-11-20T00:13:00.000Z",
        at: new Date(),
        privacyPolicy: null,
      });
      const launch = {
        ...env,
        SMTP_URL: smtp.url,
        LAUNCH_URL: "https://app.jointandem.app/start",
        CONTROLLER_NAME: "Tandem Labs GmbH",
        CONTROLLER_ADDRESS: "Example Street 1, 10115 Berlin, Germany",
      };
      await expect(run(["let-in", "--count", "5", "--netlify"], launch)).rejects.toThrow(NetlifySetupError);
      await store.fold();
      expect((await store.all()).filter((row) => row.wave !== null)).toEqual([]);
      expect(smtp.deliveries).toEqual([]);
      const sameSecret = { ...env, SMTP_URL: smtp.url, WAITLIST_SECRET: "the-secret-in-netlifys-environment-xx" };
      await expect(run(["resend-pending", "--netlify"], sameSecret)).resolves.toMatch(/^Sent 1 confirmation/);
    } finally {
      await smtp.close();
    }
  });

  it("waits out Netlify's rate limit instead of failing half-way through a long command", async () => {
    await seed();
    const waits = jest.spyOn(console, "error").mockImplementation(() => {});
    await api.close();
    // The same limit, shrunk to 3 calls in 2 s: an export needs more than that.
    api = await startNetlifyApi({ siteId: siteID, token, blobsUrl: blobs.url, perMinute: 3, windowMs: 2_000 });
    const rows = JSON.parse(
      await run(["export", "--record", "--format", "json", "--netlify"], { ...env, NETLIFY_API_URL: api.url }),
    ) as unknown[];
    expect(rows).toHaveLength(31);
    expect(api.limited).toBeGreaterThan(0);
    expect(waits).toHaveBeenCalledWith(
      expect.stringMatching(/^Netlify's API allows 500 calls a minute: waiting \d+ s/),
    );
    waits.mockRestore();
  });

  it("writes the launch list of those let in, address, leave link and wave only, and prunes the unconfirmed, in the Netlify store too", async () => {
    const store = await seed();
    await store.confirm("fan3@example.com", {
      createdAt: "2026-11-20T00:13:00.000Z",
      at: new Date("2026-11-20T01:00:00Z"),
      privacyPolicy: "2026-11-23",
    });
    // Let in for the launch tool, as let-in --launch-tool does.
    await store.letIn("fan3@example.com", {
      wave: 1,
      at: new Date(),
      createdAt: "2026-11-20T00:13:00.000Z",
      mail: false,
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), "netlify-launch-"));
    try {
      const out = path.join(dir, "launch.json");
      const launch = ["export", "--launch", "--format", "json", "--out", out, "--netlify"];
      // The site's Privacy Policy names no tool yet: nothing is written.
      policySite.names(undefined);
      await expect(run(launch, launchShell())).rejects.toThrow(
        /^The Privacy Policy at [^\n]* names no launch mail tool, /,
      );
      expect(readdirSync(dir)).toEqual([]);
      policySite.names("Intuit Inc. (Mailchimp, United States)");
      await expect(run(launch, launchShell())).resolves.toMatch(
        /: 1 address let in so far, each with its own leave link and wave, for Intuit Inc\. \(Mailchimp, United States\)\./,
      );
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual([
        { email: "fan3@example.com", leaveUrl: siteLeaveUrl(), wave: 1 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Every seeded signup was asked to confirm on 2026-11-20, more than an hour ago: all but fan3 are unconfirmed.
    await expect(run(["prune", "--unconfirmed-older-than", "1h", "--dry-run", "--netlify"], env)).resolves.toMatch(
      /^Would remove 30 unconfirmed signups/,
    );
    await expect(run(["prune", "--unconfirmed-older-than", "1h", "--netlify"], env)).resolves.toMatch(
      /^Removed 30 unconfirmed signups/,
    );
    await expect(run(["count", "--netlify"], env)).resolves.toMatch(/^1 address on the waitlist: 1 confirmed, 0 not/);
  });

  it("lets in a wave for the launch tool, then a wave by mail, on the Netlify store, and exports each wave (issue 51)", async () => {
    const store = await seed();
    const ada = (await store.all()).find((row) => row.emailKey === "ada@example.com")!;
    await store.confirm("ada@example.com", { createdAt: ada.createdAt, at: new Date(), privacyPolicy: null });
    await store.confirm("fan3@example.com", {
      createdAt: "2026-11-20T00:13:00.000Z",
      at: new Date(),
      privacyPolicy: null,
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), "netlify-waves-"));
    const smtp = await startSmtpServer();
    const controller = {
      CONTROLLER_NAME: "Tandem Labs GmbH",
      CONTROLLER_ADDRESS: "Example Street 1, 10115 Berlin, Germany",
    };
    try {
      // Wave 1 for the launch tool: Ada signed up first.
      const file = path.join(dir, "wave-1.json");
      const forTool = ["let-in", "--count", "1", "--launch-tool", "--format", "json", "--out", file, "--netlify"];
      policySite.names(undefined);
      await expect(run(forTool, launchShell())).rejects.toThrow(
        /^The Privacy Policy at [^\n]* names no launch mail tool, /,
      );
      expect(readdirSync(dir)).toEqual([]);
      expect((await store.all()).filter((row) => row.wave !== null)).toEqual([]);
      policySite.names("Intuit Inc. (Mailchimp, United States)");
      await expect(run(forTool, launchShell())).resolves.toMatch(
        /^Wave 1: let in 1 person, in the order of signup, for Intuit Inc\. \(Mailchimp, United States\) to mail\.\n/,
      );
      const leaveUrl = siteLeaveUrl();
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual([{ email: "Ada@example.com", leaveUrl, wave: 1 }]);

      // Wave 2 by mail, to this machine's outbox (no SMTP_URL): fan3, with the leave link the site signs.
      const outboxDir = path.join(dir, "outbox");
      const local = { ...env, OUTBOX_DIR: outboxDir, LAUNCH_URL: "https://app.jointandem.app/start" };
      // Not to this machine's outbox: it reaches nobody, and the site's people would be recorded as mailed.
      await expect(run(["let-in", "--count", "1", "--netlify"], local)).rejects.toThrow(
        /^Nobody let in: set SMTP_URL to the mail server the Netlify site sends through\./,
      );
      expect(existsSync(outboxDir)).toBe(false);
      const mailed = { ...local, SMTP_URL: smtp.url, ...controller };
      await expect(run(["let-in", "--count", "1", "--netlify"], mailed)).resolves.toMatch(
        /^Wave 2: let in 1 person, in the order of signup\. Sent "You're in" to 1 of them \(via smtp:/,
      );
      const { mail } = (await smtp.waitFor(1))[0]!;
      expect(mail.subject).toBe("You're in: early access to Tandem is open for you");
      expect(mail.text).toContain("(wave 2). Start here:\nhttps://app.jointandem.app/start\n");
      const secret = await store.secret("leave", () => "never made here".padEnd(32, "x"));
      const token = new URL(leaveLinks(mail).text).searchParams.get("token");
      expect(verifyLeaveToken(token, secret)?.email).toBe("fan3@example.com");
      await expect(run(["let-in", "--count", "1", "--netlify"], mailed)).resolves.toBe(
        "Nobody to let in: every confirmed signup is in a wave already (or none has confirmed).",
      );
      expect(smtp.deliveries).toHaveLength(1);

      // Each wave for the tool, from the Netlify store; never a wave let-in mailed.
      const again = path.join(dir, "wave-again.json");
      const launch = ["export", "--launch", "--format", "json", "--out", again, "--netlify", "--wave"];
      await expect(run([...launch, "2"], launchShell())).rejects.toThrow(
        /^Wave 2 was e-mailed by let-in, not handed to the launch tool/,
      );
      await run([...launch, "1"], launchShell());
      expect(JSON.parse(readFileSync(again, "utf8"))).toEqual([{ email: "Ada@example.com", leaveUrl, wave: 1 }]);
      const record = JSON.parse(await run(["export", "--record", "--format", "json", "--netlify"], env)) as Signup[];
      const waves = record
        .filter((row) => row.wave !== null)
        .map(({ email, wave, letInMail }) => [email, wave, letInMail]);
      expect(waves).toEqual([
        ["Ada@example.com", 1, "launch-tool"],
        ["fan3@example.com", 2, "sent"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await smtp.close();
    }
  });

  it("writes nothing to the Netlify store for count, stats, export and a dry-run prune", async () => {
    const store = await seed();
    // A confirmed signup's note is done with: the one a dry run once deleted.
    await store.confirm("fan3@example.com", {
      createdAt: "2026-11-20T00:13:00.000Z",
      at: new Date("2026-11-20T01:00:00Z"),
      privacyPolicy: "2026-11-23",
    });
    await blobs.settled();
    blobs.operations.length = 0;
    await run(["count", "--netlify"], env);
    await run(["stats", "--netlify"], env);
    await run(["export", "--record", "--format", "csv", "--netlify"], env);
    await expect(run(["prune", "--unconfirmed-older-than", "1h", "--dry-run", "--netlify"], env)).resolves.toMatch(
      /^Would remove 30 unconfirmed signups/,
    );
    await blobs.settled();
    expect(blobs.operations.filter((operation) => operation.type === "get").length).toBeGreaterThan(0);
    expect(blobs.operations.filter((operation) => !["get", "getMetadata", "list"].includes(operation.type))).toEqual(
      [],
    );
  });

  it("writes the report from the Netlify store through the API, as from the self-hosted one, and writes nothing there", async () => {
    await seed();
    await blobs.settled();
    blobs.operations.length = 0;
    api.calls.length = 0;
    const dir = mkdtempSync(path.join(os.tmpdir(), "report-netlify-"));
    try {
      const out = path.join(dir, "report.html");
      // Vega, which draws the charts, is an ES module Jest cannot load: the command runs in its own process.
      const { code, stdout, stderr } = await runWaitlist(["report", "--netlify", "--out", out], env);
      expect([code, stderr]).toEqual([0, ""]);
      expect(stdout).toMatch(new RegExp(`^Wrote ${out}: 31 on the list, `));
      const $ = load(readFileSync(out, "utf8"));
      expect($("header p").text()).toMatch(/^From Netlify site jointandem, read /);
      const rows = (caption: string) =>
        $(`table:has(caption:contains("${caption}")) tbody tr`)
          .toArray()
          .map((row) => $(row).children().first().text() + " " + $(row).children().eq(1).text());
      expect(rows("The funnel")).toEqual(["Signed up 32", "Confirmed 0", "Unconfirmed 31", "Left 1", "Pruned 0"]);
      expect(rows("Signups by utm_source")).toEqual(["tiktok 30 (96.8\u00a0%)", "(none) 1 (3.2\u00a0%)"]);
      // Nobody confirmed, so nobody was invited: five charts, and the invite loop says so.
      expect($("figure > svg[role=img]")).toHaveLength(5);
      expect($("#invites ~ p").last().text()).toBe("No confirmed signup came through an invite yet.");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The site's check, the ledger's list and blob, the notes still pending, the departures: as stats reads.
    expect(api.calls.length).toBeLessThanOrEqual(8);
    await blobs.settled();
    expect(blobs.operations.filter((operation) => !["get", "getMetadata", "list"].includes(operation.type))).toEqual(
      [],
    );
  });

  it.each([
    ["NETLIFY_API_TOKEN", "NETLIFY_API_TOKEN is not set: a personal access token from User settings → Applications."],
    ["NETLIFY_SITE_ID", "NETLIFY_SITE_ID is not set: the Site ID from Site configuration → General."],
  ])("without %s, says so in one line and asks nobody", async (variable, problem) => {
    delete env[variable];
    await expect(run(["stats", "--netlify"], env)).rejects.toThrow(new NetlifySetupError(problem));
    expect(api.calls).toEqual([]);
  });

  it("says in one line when Netlify refuses the token or knows no such site", async () => {
    await expect(run(["count", "--netlify"], { ...env, NETLIFY_API_TOKEN: "nfp_wrong" })).rejects.toThrow(
      new NetlifySetupError("Netlify's API refused NETLIFY_API_TOKEN (401): make a new personal access token."),
    );
    await expect(run(["count", "--netlify"], { ...env, NETLIFY_SITE_ID: "no-such-site" })).rejects.toThrow(
      new NetlifySetupError("NETLIFY_SITE_ID no-such-site names no site this token can see (404)."),
    );
  });
});
