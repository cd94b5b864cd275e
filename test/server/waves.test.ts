import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import type { ParsedMail } from "mailparser";
import { run, UsageError } from "../../cli/run";
import { form, formType, removeDir, request, signUpForMail, writePublicDir } from "../support/harness";
import { runWaitlist, spawnServe, type ServerProcess } from "../support/process";
import { atServer, confirmLinks, leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";
import { policyPage } from "../support/policy-site";
import type { Signup } from "../../waitlist/signup-life/types";
import { SqliteStore } from "../../waitlist/stores/sqlite-store";
import { until } from "../support/until";

/*
 * Issue 51's done-check, end to end: six creators sign up and confirm over real HTTP on `npm run serve` (its own
 * process, a temporary store, a real SMTP server), two of them by a third's invite link. Then the founders' commands,
 * on the same store file and mail server, let them in a wave at a time and write the launch tool's file.
 */

jest.setTimeout(patience(60_000));

const launchUrl = "https://app.jointandem.app/start";
const postalAddress = "Example Street 1, 10115 Berlin, Germany";

let dir: string;
let smtp: TestSmtpServer;
let server: ServerProcess;
/** The founders' shell: the store the server writes, its mail server, and what the launch mail needs. */
let founders: NodeJS.ProcessEnv;
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "waves-"));
  writePublicDir(path.join(dir, "public"));
  smtp = await startSmtpServer();
  const store = { WAITLIST_DB: path.join(dir, "data", "waitlist.db"), SMTP_URL: smtp.url };
  server = await spawnServe({ ...store, PUBLIC_DIR: path.join(dir, "public"), WAITLIST_RATE_LIMIT: "1000000" });
  founders = {
    ...store,
    LAUNCH_URL: launchUrl,
    CONTROLLER_NAME: "Tandem Labs GmbH",
    CONTROLLER_ADDRESS: postalAddress,
  };
});
afterEach(async () => {
  await server.stop();
  await smtp.close();
  removeDir(dir);
});

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;
const local = (link: string) => atServer(server.url, link);

/** Signs `email` up from `page` and confirms it by its mailed link: the page it opens, then its button. */
async function signUpAndConfirm(email: string, page = "/") {
  const { mail } = await signUpForMail(server, smtp, email, page);
  const link = local(confirmLinks(mail).text);
  expect((await request(link, { headers: { Accept: "text/html" } })).status).toBe(200);
  const confirmed = await request(`${server.url}/waitlist/confirm`, {
    method: "POST",
    headers: { ...formType, Accept: "text/html", Origin: server.url },
    body: form({ token: tokenOf(link) }),
  });
  expect(confirmed.status).toBe(200);
  return { mail, page: confirmed.body };
}

/** Follows a mailed leave link as a person does: the page it opens, then its button. */
async function leaveBy(link: string) {
  const page = await request(local(link), { headers: { Accept: "text/html" } });
  expect(page.body).toContain('<button type="submit">Leave the waitlist</button>');
  const left = await request(`${server.url}/waitlist/leave`, {
    method: "POST",
    headers: { ...formType, Accept: "text/html", Origin: server.url },
    body: form({ token: tokenOf(link) }),
  });
  expect(left.body).toContain("<h1>You&#39;re off the list.</h1>");
}

/** The "You're in" mails received so far, in the order they arrived. */
const letInMails = (): { to: string; mail: ParsedMail }[] =>
  smtp.deliveries
    .filter((delivery) => delivery.mail.subject?.startsWith("You're in"))
    .map((delivery) => ({ to: delivery.envelope.to.join(), mail: delivery.mail }));

/** Who is in which wave, as the founders' own record has it: name → [wave, its e-mail's state]. */
async function waves() {
  const rows = JSON.parse(await run(["export", "--record", "--format", "json"], founders)) as Signup[];
  return Object.fromEntries(rows.map((row) => [row.email.split("@")[0]!, [row.wave, row.letInMail]]));
}

describe("launching in waves from the npm run serve server's store (issue 51)", () => {
  it("lets the inviter in first, the next two after, never one twice nor a leaver, and hands the tool only its columns", async () => {
    // Six confirm through their mailed links; dee and eve arrive by cleo's invite link.
    const ada = await signUpAndConfirm("ada@example.com");
    const bob = await signUpAndConfirm("bob@example.com");
    const cleo = await signUpAndConfirm("cleo@example.com");
    const code = /\/\?invite=([A-Za-z0-9_-]{12})"/.exec(cleo.page)![1]!;
    await signUpAndConfirm("dee@example.com", `/?invite=${code}`);
    await signUpAndConfirm("eve@example.com", `/?utm_source=tiktok&invite=${code}`);
    await signUpAndConfirm("fay@example.com");
    expect(ada.mail.subject).not.toMatch(/^You're in/);

    // (a) A wave of 2 by invites: cleo, who brought two, before ada, who signed up first of the rest.
    const byInvites = ["let-in", "--count", "2", "--order", "invites"];
    await expect(run([...byInvites, "--dry-run"], founders)).resolves.toMatch(
      /^Would let in 2 people as wave 1, by invites, each e-mailed "You're in":\n {2}1\. cleo@example\.com \(signed up [\d-]+, 2 confirmed invites\)\n {2}2\. ada@example\.com \(signed up [\d-]+, 0 confirmed invites\)\nEach gets "You're in: early access to Tandem is open for you", its button to https:\/\/[^,]+, their own leave link and Tandem Labs GmbH, [^\n]+\.$/,
    );
    expect(letInMails()).toEqual([]);
    await expect(run(byInvites, founders)).resolves.toBe(
      `Wave 1: let in 2 people, by invites. Sent "You're in" to 2 of them (via ${smtp.url}).`,
    );
    expect(
      letInMails()
        .map(({ to }) => to)
        .sort(),
    ).toEqual(["ada@example.com", "cleo@example.com"]);
    for (const { to, mail } of letInMails()) {
      expect(mail.subject).toBe("You're in: early access to Tandem is open for you");
      expect(mail.text).toContain(`early access is open for you now (wave 1). Start here:\n${launchUrl}\n`);
      expect(String(mail.html)).toContain(`href="${launchUrl}"`);
      expect(mail.text).toContain(`Tandem Labs GmbH, ${postalAddress}`);
      const links = leaveLinks(mail);
      expect([links.html, links.header]).toEqual([links.text, links.text]);
      // The leave link is that person's own: its page names them, masked.
      const page = await request(local(links.text), { headers: { Accept: "text/html" } });
      expect(page.body).toContain(`<h1>Remove ${to[0]}***@example.com from the waitlist?</h1>`);
    }
    expect(await waves()).toMatchObject({ ada: [1, "sent"], cleo: [1, "sent"], bob: [null, null] });

    // The leave link of the wave's mail works: ada is gone.
    await leaveBy(leaveLinks(letInMails().find(({ to }) => to === "ada@example.com")!.mail).text);
    // (c) bob leaves by the link of his confirmation before the next wave.
    await leaveBy(leaveLinks(bob.mail).text);

    // (b) The next wave of 2, in the order of signup: dee and eve, not bob, and nobody of wave 1 again.
    await expect(run(["let-in", "--count", "2"], founders)).resolves.toMatch(
      /^Wave 2: let in 2 people, in the order of signup\. Sent "You're in" to 2 of them/,
    );
    const mailed = letInMails().map(({ to }) => to);
    expect(mailed.slice(2).sort()).toEqual(["dee@example.com", "eve@example.com"]);
    expect(new Set(mailed).size).toBe(4);
    expect(letInMails()[2]!.mail.text).toContain("(wave 2)");
    // (c) Neither leaver is on the list, so neither is in a wave; fay waits for the next.
    expect(await waves()).toEqual({
      cleo: [1, "sent"],
      dee: [2, "sent"],
      eve: [2, "sent"],
      fay: [null, null],
    });

    // (e) The launch export asks the site (SITE_URL) which tool its Privacy Policy names: while it names none, it
    // refuses and writes nothing.
    const csv = path.join(dir, "launch.csv");
    const launch = ["export", "--launch", "--format", "csv", "--out", csv];
    const tool = { ...founders, SITE_URL: server.url };
    await expect(run(launch, tool)).rejects.toThrow(UsageError);
    const refused = await runWaitlist(launch, tool);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^The Privacy Policy at [^\n]* names no launch mail tool, [^\n]* nothing was written\.\n$/,
    );
    expect(existsSync(csv)).toBe(false);

    // (d) Once the policy the site serves names it, the next wave through the tool instead: fay, the one left. Its file
    // has exactly the address, its own leave link and its wave.
    const policy = path.join(dir, "public", "privacy-policy", "index.html");
    writeFileSync(policy, policyPage("Intuit Inc. (Mailchimp, United States)"));
    await expect(
      run(["let-in", "--count", "2", "--launch-tool", "--format", "csv", "--out", csv], tool),
    ).resolves.toMatch(
      /^Wave 3: let in 1 person, in the order of signup, for Intuit Inc\. \(Mailchimp, United States\) to mail\.\n/,
    );
    const [header, ...rows] = parse(readFileSync(csv, "utf8"), { bom: true }) as string[][];
    expect(header).toEqual(["email", "leave_url", "wave"]);
    expect(rows.map(([email, , wave]) => [email, wave])).toEqual([["fay@example.com", "3"]]);
    for (const [, leaveUrl] of rows) {
      expect(leaveUrl!.startsWith(`${server.url}/waitlist/leave?token=`)).toBe(true);
      const page = await request(leaveUrl!, { headers: { Accept: "text/html" } });
      expect(page.body).toContain("<h1>Remove f***@example.com from the waitlist?</h1>");
    }
    expect(letInMails()).toHaveLength(4);
    // The launch export gives the tool the same people again, and never a wave let-in mailed itself.
    await expect(run(launch, tool)).resolves.toMatch(
      /: 1 address let in so far, each with its own leave link and wave/,
    );
    expect(parse(readFileSync(csv, "utf8"), { bom: true, columns: true })).toEqual([
      expect.objectContaining({ email: "fay@example.com", wave: "3" }),
    ]);
    await expect(run(["export", "--launch", "--wave", "2", "--format", "csv", "--out", csv], tool)).rejects.toThrow(
      /^Wave 2 was e-mailed by let-in, not handed to the launch tool/,
    );
  });

  it("deletes, at the server's retention pass, whoever was let in longer ago than the Privacy Policy keeps them (issue 61)", async () => {
    for (const email of ["long@example.com", "lately@example.com", "held@example.com"]) await signUpAndConfirm(email);
    const store = SqliteStore.openExisting(founders.WAITLIST_DB!);
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
    for (const [email, days] of [
      ["long@example.com", 91],
      ["lately@example.com", 89],
      ["held@example.com", 91],
    ] as const) {
      const { createdAt } = (await store.all()).find((one) => one.email === email)!;
      await store.letIn(email, { wave: 1, at: daysAgo(days), createdAt, mail: false });
    }
    // Restricted (a question being settled): kept until it is lifted.
    await store.restrict("held@example.com", new Date());
    await store.close();
    // The server's pass runs as it starts, then hourly.
    await server.stop();
    server = await spawnServe({ ...founders, PUBLIC_DIR: path.join(dir, "public"), WAITLIST_RATE_LIMIT: "1000000" });
    await until(() => server.output().includes("Removed 1 entries of people let in over 90 days ago."));
    const rows = JSON.parse(await run(["export", "--record", "--format", "json"], founders)) as Signup[];
    // The restricted entry is kept, out of any copy of the whole list (issue 67): its own row comes by --email.
    expect(rows.map((row) => row.email).sort()).toEqual(["lately@example.com"]);
    const own = ["export", "--record", "--format", "json", "--email", "held@example.com"];
    expect((JSON.parse(await run(own, founders)) as Signup[]).map((row) => row.email)).toEqual(["held@example.com"]);
    expect(JSON.parse(await run(["stats", "--json"], founders))).toMatchObject({ afterWave: 1 });
  });
});
