import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { load, type CheerioAPI } from "cheerio";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import { patience } from "../test/support/patience";
import { runWaitlist } from "../test/support/process";
import { run, UsageError } from "./run";

/*
 * npm run waitlist -- report: the list's growth as one HTML file. Its charts are drawn by Vega, an ES module Jest
 * cannot load, so the command runs as a founder runs it, in a process of its own (at the real time); its refusals,
 * made before any store is opened or chart drawn, run here.
 */

jest.setTimeout(patience(30_000));

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "report-"));
  env = { WAITLIST_DB: path.join(dir, "waitlist.db") };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const noTags = { utmMedium: null, utmContent: null, utmTerm: null, landingPath: "/" };
/** A tag a visitor wrote into their link, to be shown as text. */
const hostileTag = '<img src=x onerror="alert(1)">';

/**
 * Ada confirmed and invited Bob (confirmed, by a link whose ref is his address) and Carl (not yet, by a link with
 * markup in its utm_source); Dora confirmed today. One left, one was pruned. Half an hour ago Ada and Bob were let
 * in as wave 1 (Ada's e-mail sent, Bob's still owed), then Dora as wave 2, for the launch tool.
 */
async function seed(): Promise<{ ada: string; letInAt: Date }> {
  const store = new SqliteStore(env.WAITLIST_DB!);
  const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000);
  const join = async (
    email: string,
    hours: number,
    extra: { ref?: string; utmSource?: string; invitedBy?: string },
  ) => {
    const attribution = { ...noTags, utmSource: extra.utmSource ?? null, utmCampaign: null, ref: extra.ref ?? null };
    const at = ago(hours);
    await store.add({
      email,
      emailKey: email,
      source: "start",
      at,
      attribution,
      mailboxDigest: `m-${email}`,
      ...extra,
    });
    return at;
  };
  const confirm = async (email: string, at: Date) =>
    (await store.confirm(email, {
      createdAt: at.toISOString(),
      at: new Date(at.getTime() + 60_000),
      privacyPolicy: null,
    }))!.inviteCode;
  const adaJoined = await join("ada@example.com", 72, { utmSource: "tiktok" });
  const ada = await confirm("ada@example.com", adaJoined);
  const bob = await join("bob@example.com", 48, { ref: "bob@example.com", invitedBy: ada });
  await confirm("bob@example.com", bob);
  await join("carl@example.com", 24, { utmSource: hostileTag, invitedBy: ada });
  const dora = await join("dora@example.com", 1, { utmSource: "tiktok" });
  await confirm("dora@example.com", dora);
  const letInAt = ago(0.5);
  const letIn = (email: string, createdAt: Date, wave: number, mail: boolean) =>
    store.letIn(email, { wave, at: letInAt, createdAt: createdAt.toISOString(), mail });
  await letIn("ada@example.com", adaJoined, 1, true);
  await letIn("bob@example.com", bob, 1, true);
  await store.letInMail("ada@example.com", "take", 1);
  await store.letInMail("ada@example.com", "sent", 1);
  await letIn("dora@example.com", dora, 2, false);
  await store.add({ email: "gone@example.com", emailKey: "gone@example.com", source: "start" });
  await store.remove("gone@example.com", "link", new Date());
  await store.add({ email: "late@example.com", emailKey: "late@example.com", source: "start" });
  await store.remove("late@example.com", "pruned", new Date());
  await store.close();
  return { ada, letInAt };
}

/** A table of the report as rows of cell texts, found by its caption. */
const rowsOf = ($: CheerioAPI, caption: string) =>
  $(`table:has(caption:contains("${caption}")) tbody tr`)
    .toArray()
    .map((row) =>
      $(row)
        .children()
        .toArray()
        .map((cell) => $(cell).text()),
    );

describe("npm run waitlist -- report", () => {
  it("writes one HTML file, for this user alone, with the figures of every chart in a table beside it", async () => {
    const { ada, letInAt } = await seed();
    const out = path.join(dir, "report.html");
    writeFileSync(out, "an older report", { mode: 0o644 });
    const zone = "Pacific/Kiritimati";
    const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date());
    const before = today();
    const { code, stdout, stderr } = await runWaitlist(["report", "--out", out], { ...env, TZ: zone });
    expect([code, stderr]).toEqual([0, ""]);
    // Days are local to TZ (UTC+14): the window ends on Kiritimati's today. (Should its midnight pass meanwhile, either.)
    expect(
      [before, today()].map(
        (day) => `Wrote ${out}: 4 on the list, 4 signups in the 7 days to ${day} (${zone}). Open it in a browser.\n`,
      ),
    ).toContain(stdout);
    expect(statSync(out).mode & 0o777).toBe(0o600);

    const html = readFileSync(out, "utf8");
    const $ = load(html);
    expect($("header p").text()).toContain(`Days are local to ${zone}.`);
    const days = rowsOf($, "Each day");
    expect(days).toHaveLength(7);
    expect([before, today()]).toContain(days.at(-1)![0]!.slice(0, 10));
    expect(days.reduce((sum, [, signups]) => sum + Number(signups), 0)).toBe(4);
    expect(days.reduce((sum, [, , confirmations]) => sum + Number(confirmations), 0)).toBe(3);
    expect(rowsOf($, "The funnel")).toEqual([
      ["Signed up", "6", "100.0\u00a0%"],
      ["Confirmed", "3", "50.0\u00a0%"],
      ["Unconfirmed", "1", "16.7\u00a0%"],
      ["Left", "1", "16.7\u00a0%"],
      ["Pruned", "1", "16.7\u00a0%"],
    ]);
    expect(rowsOf($, "Signups by utm_source")).toEqual([
      ["tiktok", "2 (50.0\u00a0%)", "2 (100.0\u00a0%)"],
      ["(none)", "1 (25.0\u00a0%)", "1 (100.0\u00a0%)"],
      [hostileTag, "1 (25.0\u00a0%)", "0 (0.0\u00a0%)"],
    ]);
    expect(rowsOf($, "Signups by ref").map(([tag]) => tag)).toEqual(["(none)", "(hidden: an e-mail address)"]);
    expect($("#invites + p").text()).toBe(
      "1 of the 3 confirmed signups (33.3\u00a0%) came through an invite. An inviter counts one confirmed invitee per mailbox, never their own.",
    );
    expect(rowsOf($, "Top inviters")).toEqual([[ada, "1"]]);
    // The waves, each at the minute it let its people in (UTC); Bob's e-mail not sent yet.
    const when = `${letInAt.toISOString().slice(0, 10)} ${letInAt.toISOString().slice(11, 16)}`;
    expect(rowsOf($, "The waves")).toEqual([
      ["1", "2", when, "1", "0"],
      ["2", "1", when, "0", "0"],
    ]);

    // Each chart is one named image, drawn already: SVG marks, no script to run.
    const charts = $("figure > svg[role=img]").toArray();
    expect(charts).toHaveLength(6);
    for (const svg of charts) {
      expect($(svg).attr("aria-label")).toMatch(/^(Two bar charts|Bar chart).+has (the same|each day's) figures\.$/);
      expect($(svg).find("rect, path").length).toBeGreaterThan(3);
      expect($(svg).closest(".pair").find("table")).toHaveLength(1);
    }
    // The visitor's tag is text, in the tables and the charts alike.
    expect($("img, [onerror]")).toHaveLength(0);
    expect($("figure text").text()).toContain("<img src=x");
  });

  it("names no address, and nothing from elsewhere: no script, no link, no URL of any kind", async () => {
    await seed();
    const out = path.join(dir, "report.html");
    expect((await runWaitlist(["report", "--out", out, "--days", "3"], env)).code).toBe(0);
    const html = readFileSync(out, "utf8");
    // An address is text@text; the stylesheet's @media rules start a line.
    expect(html).not.toMatch(/\S@\S/);
    expect(html).not.toMatch(/example|m-ada|m-bob/);
    const $ = load(html);
    expect($("script, link, img, iframe, object, embed, base, [src], [href], [style]")).toHaveLength(0);
    expect(html).not.toMatch(/https?:|\/\/|url\(|@import/i);
    expect($("meta[http-equiv=Content-Security-Policy]").attr("content")).toMatch(/^default-src 'none'; /);
    expect(rowsOf($, "Each day")).toHaveLength(3);
  });

  it("refuses, before it opens a store, to write nowhere, into a folder or for days it cannot draw", async () => {
    const missing = { WAITLIST_DB: path.join(dir, "none.db") };
    await expect(run(["report"], missing)).rejects.toThrow(
      new UsageError("report writes an HTML file: say where, with --out FILE.html (then open it in a browser)."),
    );
    await expect(run(["report", "--out", dir], missing)).rejects.toThrow(`--out ${dir} is not a file`);
    await expect(run(["report", "--out", path.join(dir, "r.html"), "--days", "0"], missing)).rejects.toThrow(
      '--days must be a whole number from 1 to 366 (got "0").',
    );
    const refused = await runWaitlist(["report", "--out", path.join(dir, "no-folder", "r.html")], missing);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      `--out ${path.join(dir, "no-folder", "r.html")}: there is no folder ${path.join(dir, "no-folder")}.\n`,
    ]);
  });
});
