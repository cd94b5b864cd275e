import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run, UsageError } from "./run";
import { PendingError } from "./errors";
import { changesToAnnounce } from "./commands/announce";
import { projectFolders } from "../config/folders";
import { readPolicySources, policyRecords } from "../waitlist/policies";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import { verifyLeaveToken } from "../waitlist/tokens";
import { suppressionFingerprint } from "../waitlist/suppressions";
import { spawnWaitlist } from "../test/support/process";
import { leaveLinks, startSmtpServer, type TestSmtpServer } from "../test/support/smtp";

/*
 * npm run waitlist -- announce-policy-change: the e-mail the Privacy Policy promises the confirmed members when a
 * significant change is posted, against the SQLite store and a real SMTP server.
 */

let dir: string;
let env: NodeJS.ProcessEnv;
let smtp: TestSmtpServer;
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "cli-announce-"));
  smtp = await startSmtpServer(0, { refuseRecipient: (address) => address.startsWith("gone@") });
  env = { WAITLIST_DB: path.join(dir, "waitlist.db"), SMTP_URL: smtp.url, ...controller };
});
afterEach(async () => {
  await smtp.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = (day: number) => new Date(Date.UTC(2026, 10, day, 9));
/** Who sends the announcement, and where: as the site's build has them. */
const controller = {
  CONTROLLER_NAME: "Tandem Labs GmbH",
  CONTROLLER_ADDRESS: "Example Street 1, 10115 Berlin, Germany",
};
const postalAddress = "Tandem Labs GmbH, Example Street 1, 10115 Berlin, Germany";

/** Ada and Cleo confirmed; Bob never did; Early signed up before the confirm step and was never asked. */
async function seed({ refusedToo = false } = {}) {
  const store = new SqliteStore(env.WAITLIST_DB!);
  const confirmed = ["ada@example.com", "cleo@example.com", ...(refusedToo ? ["gone@example.com"] : [])];
  for (const [index, email] of [...confirmed, "bob@example.com"].entries()) {
    await store.add({ email, emailKey: email, source: "start", at: at(index + 1) });
    await store.markConfirmationSent(email, at(index + 1));
  }
  for (const [index, email] of confirmed.entries()) {
    await store.confirm(email, { createdAt: at(index + 1).toISOString(), at: at(index + 1), privacyPolicy: "x" });
  }
  await store.add({ email: "early@example.com", emailKey: "early@example.com", source: "start", earlier: true });
  await store.close();
}

/** The Privacy Policy's newest change, as its file records it: the day, and every entry of that day. */
function newestPrivacyChange() {
  const { updates } = policyRecords(readPolicySources(projectFolders.legal)).find(
    (record) => record.slug === "privacy-policy",
  )!;
  const date = updates[0]!.date;
  return { date, summaries: updates.filter((entry) => entry.date === date).map((entry) => entry.summary) };
}

const written = (date: string) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(date));
const flat = (text: string) => text.replace(/\s+/g, " ");

describe("announce-policy-change", () => {
  it("mails each confirmed signup, and nobody else, the day's change with the policy's link and their own leave link", async () => {
    await seed();
    const { date, summaries } = newestPrivacyChange();
    const output = await run(["announce-policy-change", "--policy", "privacy-policy", "--date", date], env);
    expect(output).toBe(
      `Sent the change of the Privacy Policy (${date}) to 2 of 2 confirmed signups (via ${smtp.url}).`,
    );
    const deliveries = await smtp.waitFor(2);
    expect(deliveries.map((delivery) => delivery.envelope.to).sort()).toEqual([
      ["ada@example.com"],
      ["cleo@example.com"],
    ]);

    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    const secret = await store.secret("leave", () => "never made here");
    const rows = await store.all();
    await store.close();
    for (const { mail, envelope, raw } of deliveries) {
      expect(mail.subject).toBe("A change to our Privacy Policy");
      const text = flat(mail.text ?? "");
      const html = flat(String(mail.html));
      expect(text).toContain(`Privacy Policy, in effect from ${written(date)}:`);
      for (const summary of summaries) {
        expect(text).toContain(`- ${flat(summary)}`);
        expect(html).toContain(flat(summary).replaceAll("'", "&#39;").replaceAll('"', "&quot;"));
      }
      expect(text).toContain("Read it: https://jointandem.app/privacy-policy/");
      // The controller's postal address, as CAN-SPAM asks of every such mail: in the text and the HTML.
      expect(text).toContain(postalAddress);
      expect(html).toContain(postalAddress);
      // Their own leave link, in the text, the HTML and List-Unsubscribe (with the mailto), as the confirmation has.
      const links = leaveLinks(mail);
      expect(links.html).toBe(links.text);
      expect(links.header).toBe(links.text);
      expect(links.mailto).toBe("mailto:hello@jointandem.app?subject=unsubscribe");
      expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      const row = rows.find((candidate) => candidate.email === envelope.to[0])!;
      expect(verifyLeaveToken(new URL(links.text).searchParams.get("token"), secret)).toEqual({
        email: row.email,
        key: row.emailKey,
        createdAt: row.createdAt,
      });
    }
  });

  it("skips a member whose mail bounced for good and one whose mailbox is held after a complaint, and says how many", async () => {
    const secret = "a-secret-of-at-least-32-characters";
    env.WAITLIST_SECRET = secret;
    await seed();
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    for (const [index, email] of ["dan@example.com", "erin+x@example.com"].entries()) {
      await store.add({ email, emailKey: email, source: "start", at: at(10 + index) });
      await store.confirm(email, { createdAt: at(10 + index).toISOString(), at: at(10 + index), privacyPolicy: "x" });
    }
    await store.markBounced("dan@example.com", "bounced for good: 550 5.1.1", new Date());
    await store.suppress(
      suppressionFingerprint(secret, "erin@example.com"),
      new Date(Date.now() + 86_400_000),
      "complaint",
    );
    await store.close();
    const { date } = newestPrivacyChange();
    const args = ["announce-policy-change", "--policy", "privacy-policy", "--date", date];
    await expect(run([...args, "--dry-run"], env)).resolves.toMatch(
      /to 3 confirmed signups .*held after a bounce or a spam complaint:\nSkipped 1 member whose mail bounced for good: never mailed again\.\n/,
    );
    await expect(run(args, env)).resolves.toBe(
      [
        `Sent the change of the Privacy Policy (${date}) to 2 of 3 confirmed signups (via ${smtp.url}).`,
        "Skipped 1 member whose mail bounced for good: never mailed again.",
        "Skipped 1 member whose mailbox is held after a bounce or a spam complaint: not sent.",
      ].join("\n"),
    );
    const deliveries = await smtp.waitFor(2);
    expect(deliveries.map((delivery) => delivery.envelope.to[0]).sort()).toEqual([
      "ada@example.com",
      "cleo@example.com",
    ]);
  });

  it("mails nobody let in already, nor anyone whose entry is restricted, and says how many it skipped", async () => {
    await seed();
    const store = SqliteStore.openExisting(env.WAITLIST_DB!);
    for (const [index, email] of ["dan@example.com", "erin@example.com"].entries()) {
      await store.add({ email, emailKey: email, source: "start", at: at(10 + index) });
      await store.confirm(email, { createdAt: at(10 + index).toISOString(), at: at(10 + index), privacyPolicy: "x" });
    }
    // Dan was let in with wave 1: his consent was to hear from us until then. Erin asked for a restriction.
    await store.letIn("dan@example.com", { wave: 1, at: at(12), createdAt: at(10).toISOString(), mail: true });
    await store.restrict("erin@example.com", at(12));
    await store.close();
    const { date } = newestPrivacyChange();
    await expect(run(["announce-policy-change", "--policy", "privacy-policy", "--date", date], env)).resolves.toBe(
      [
        `Sent the change of the Privacy Policy (${date}) to 2 of 2 confirmed signups (via ${smtp.url}).`,
        "Skipped 1 member let in already: their consent was to hear from us until early access opened for them.",
        "Skipped 1 member whose entry is restricted.",
      ].join("\n"),
    );
    const deliveries = await smtp.waitFor(2);
    expect(deliveries.map((delivery) => delivery.envelope.to[0]).sort()).toEqual([
      "ada@example.com",
      "cleo@example.com",
    ]);
  });

  it("on --dry-run, says whom it would mail and shows the message, and sends nothing", async () => {
    await seed();
    const { date, summaries } = newestPrivacyChange();
    const output = await run(["announce-policy-change", "--date", date, "--dry-run"], env);
    expect(output).toMatch(
      new RegExp(`^Would send the change of the Privacy Policy \\(${date}\\).* to 2 confirmed signups`),
    );
    expect(output).toContain("Subject: ");
    expect(flat(output)).toContain(flat(summaries[0]!));
    expect(output).toContain("<their own leave link>");
    expect(smtp.deliveries).toEqual([]);
  });

  it("lists the addresses the mail server refused for good, holds them as after a bounce, and never tries them again (issue 65)", async () => {
    await seed({ refusedToo: true });
    const { date } = newestPrivacyChange();
    const said = await run(["announce-policy-change", "--policy", "privacy-policy", "--date", date], env);
    expect(said).toMatch(
      /to 2 of 3 confirmed signups.*\nRefused for good by the mail server \(not tried again; the address is held as after a bounce\):\n {2}g\*\*\*@example\.com: .*550/s,
    );
    // Run again with a server that would take it: the address refused for good is not tried again, nor anyone else.
    await smtp.close();
    smtp = await startSmtpServer();
    await expect(
      run(["announce-policy-change", "--policy", "privacy-policy", "--date", date], { ...env, SMTP_URL: smtp.url }),
    ).resolves.toMatch(
      /to 0 of 3 confirmed signups .*\n2 were sent it by an earlier run.*\nSkipped 1 member whose mailbox is held after a bounce or a spam complaint: not sent\./s,
    );
    expect(smtp.deliveries).toEqual([]);
  });

  it("lists the addresses the mail server refused for now, exits as for what may pass, and sends them on the next run", async () => {
    await seed({ refusedToo: true });
    await smtp.close();
    smtp = await startSmtpServer(0, { deferRecipient: (address) => address === "gone@example.com" });
    const { date } = newestPrivacyChange();
    const failure = await run(["announce-policy-change", "--policy", "privacy-policy", "--date", date], {
      ...env,
      SMTP_URL: smtp.url,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PendingError);
    expect((failure as Error).message).toMatch(
      /to 2 of 3 confirmed signups.*\nNot sent, the mail server said .*:\n {2}g\*\*\*@example\.com: .*451/s,
    );
    // Run again once the mail server takes it: only the one not sent goes.
    await smtp.close();
    smtp = await startSmtpServer();
    await expect(
      run(["announce-policy-change", "--policy", "privacy-policy", "--date", date], { ...env, SMTP_URL: smtp.url }),
    ).resolves.toMatch(/to 1 of 3 confirmed signups .*\n2 were sent it by an earlier run/);
    expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["gone@example.com"]]);
  });

  it("sends nothing when no policy changed that day, and says what the newest changes are", async () => {
    await seed();
    await expect(run(["announce-policy-change", "--date", "2026-01-01"], env)).rejects.toThrow(
      /^Nothing sent: no policy's newest change under "What changed" is dated 2026-01-01 \(the newest: Privacy Policy \d{4}-\d\d-\d\d, Terms of Service /,
    );
    await expect(run(["announce-policy-change", "--policy", "cookies"], env)).rejects.toThrow(UsageError);
    await expect(run(["announce-policy-change", "--date", "26.11.2026"], env)).rejects.toThrow(
      '--date must be a day written as YYYY-MM-DD (got "26.11.2026").',
    );
    expect(smtp.deliveries).toEqual([]);
  });

  it("refuses to write real people's mail to this machine's outbox without SMTP_URL, and to send without the postal address", async () => {
    await seed();
    const outbox = path.join(dir, "outbox");
    const { date } = newestPrivacyChange();
    const args = ["announce-policy-change", "--policy", "privacy-policy", "--date", date];
    await expect(run(args, { WAITLIST_DB: env.WAITLIST_DB, OUTBOX_DIR: outbox, ...controller })).rejects.toThrow(
      /^Nothing sent: set SMTP_URL to the mail server the site sends through\. Without it .* a leave cannot delete them/,
    );
    await expect(run(args, { WAITLIST_DB: env.WAITLIST_DB, SMTP_URL: smtp.url })).rejects.toThrow(
      /^Nothing sent: set CONTROLLER_NAME and CONTROLLER_ADDRESS /,
    );
    expect(existsSync(outbox)).toBe(false);
    expect(smtp.deliveries).toEqual([]);
    // A dry run shows the message all the same, placeholder and all.
    await expect(run([...args, "--dry-run"], { WAITLIST_DB: env.WAITLIST_DB })).resolves.toMatch(
      /via SMTP_URL, which is not set.*set CONTROLLER_ADDRESS/s,
    );
  });

  it("sends nothing more on a second run of the same announcement, unless --again", async () => {
    await seed();
    const { date } = newestPrivacyChange();
    const args = ["announce-policy-change", "--policy", "privacy-policy", "--date", date];
    await run(args, env);
    await smtp.waitFor(2);
    await expect(run(args, env)).resolves.toBe(
      [
        `Sent the change of the Privacy Policy (${date}) to 0 of 2 confirmed signups (via ${smtp.url}).`,
        "2 were sent it by an earlier run (or were being sent it when a run stopped): not sent again; --again sends it to them again.",
      ].join("\n"),
    );
    expect(smtp.deliveries).toHaveLength(2);
    await expect(run([...args, "--again"], env)).resolves.toMatch(/^Sent .* to 2 of 2 confirmed signups/);
    expect(smtp.deliveries.map((delivery) => delivery.envelope.to[0]).sort()).toEqual([
      "ada@example.com",
      "ada@example.com",
      "cleo@example.com",
      "cleo@example.com",
    ]);
  });

  it("does not mail someone who leaves while it runs", async () => {
    await seed();
    const { date } = newestPrivacyChange();
    await smtp.close();
    // The mail server holds the first message while Cleo leaves, as a leave link or a founder's remove does.
    let first = true;
    smtp = await startSmtpServer(0, {
      beforeData: async () => {
        if (!first) return;
        first = false;
        const store = SqliteStore.openExisting(env.WAITLIST_DB!);
        await store.remove("cleo@example.com", "link", new Date());
        await store.close();
      },
    });
    env.SMTP_URL = smtp.url;
    await expect(run(["announce-policy-change", "--policy", "privacy-policy", "--date", date], env)).resolves.toBe(
      [
        `Sent the change of the Privacy Policy (${date}) to 1 of 2 confirmed signups (via ${smtp.url}).`,
        "1 person left or signed up anew since the list was read: not sent.",
      ].join("\n"),
    );
    expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["ada@example.com"]]);
  });

  it("resumed after a crash half-way, mails only those the first run had not come to, and nobody twice", async () => {
    await seed();
    const { date } = newestPrivacyChange();
    const args = ["announce-policy-change", "--policy", "privacy-policy", "--date", date];
    await smtp.close();
    // The first run is killed (SIGKILL) while the mail server holds its first message: Ada's is never delivered.
    const first: { run?: ChildProcess } = {};
    smtp = await startSmtpServer(0, {
      beforeData: async () => {
        const child = first.run;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGKILL");
        await exited;
      },
    });
    env.SMTP_URL = smtp.url;
    const child = spawnWaitlist(args, env);
    first.run = child;
    const killed = await new Promise<NodeJS.Signals | null>((resolve) =>
      child.once("exit", (_code, signal) => resolve(signal)),
    );
    expect(killed).toBe("SIGKILL");
    expect(smtp.deliveries).toEqual([]);
    // Run again: Cleo is mailed; Ada, whose mail was under way when it stopped, is not mailed a second time.
    await expect(run(args, env)).resolves.toBe(
      [
        `Sent the change of the Privacy Policy (${date}) to 1 of 2 confirmed signups (via ${smtp.url}).`,
        "1 was sent it by an earlier run (or was being sent it when a run stopped): not sent again; --again sends it to them again.",
      ].join("\n"),
    );
    expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["cleo@example.com"]]);
    // A process of its own (tsx), started and killed: seconds on a busy machine.
  }, 60_000);
});

describe("the changes an announcement tells", () => {
  const records = [
    {
      slug: "privacy-policy",
      title: "Privacy Policy",
      updates: [
        { date: "2026-11-26", summary: "Second change of the day." },
        { date: "2026-11-26", summary: "First change of the day." },
        { date: "2026-11-20", summary: "Older." },
      ],
    },
    { slug: "terms-of-service", title: "Terms of Service", updates: [{ date: "2026-11-26", summary: "Terms." }] },
  ];

  it("are every policy's entries of the day, newest first, or the one policy named", () => {
    expect(changesToAnnounce(records, { date: "2026-11-26" })).toEqual([
      {
        title: "Privacy Policy",
        path: "/privacy-policy/",
        date: "2026-11-26",
        summaries: ["Second change of the day.", "First change of the day."],
      },
      { title: "Terms of Service", path: "/terms-of-service/", date: "2026-11-26", summaries: ["Terms."] },
    ]);
    expect(changesToAnnounce(records, { date: "2026-11-26", policy: "terms-of-service" })).toHaveLength(1);
    // Only a policy whose newest entry is of that day: an older entry is no news.
    expect(() => changesToAnnounce(records, { date: "2026-11-20" })).toThrow(/^Nothing sent/);
  });
});
