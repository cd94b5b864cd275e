import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import type { AddressInfo } from "node:net";
import path from "node:path";
import express from "express";
import matter from "gray-matter";
import { run } from "../../cli/run";
import { launchColumns } from "../../waitlist/launch/launch-list";
import { maskEmail } from "../../waitlist/email-address";
import { site } from "../../config/site";
import { requestLog } from "../../server/waitlist-middleware";
import { attributionFrom } from "../../waitlist/attribution";
import { createConfirmations } from "../../waitlist/mail/confirmations";
import { confirmationMessage, objectAnchor, type MailMessage } from "../../waitlist/mail/confirmation-message";
import { letInMessage } from "../../waitlist/mail/let-in-message";
import { pruneUnconfirmed } from "../../waitlist/prune";
import { newInviteCode } from "../../waitlist/invites";
import { SqliteStore } from "../../waitlist/stores/sqlite-store";
import { actOnMailEvent } from "../../waitlist/mail-events/act";
import { fingerprintKeyFrom } from "../../waitlist/fingerprints";
import { suppressedUntil } from "../../waitlist/suppressions";
import { testSite } from "../support/site-settings";
import { startPolicySite } from "../support/policy-site";

/*
 * What the policies promise, held against what the site does, sentence by sentence where a test can hold one. The
 * sentences are read from the MDX as legal staff write it, components and all (<MinimumAge /> is site.minimumAge).
 */

const text = (slug: string) =>
  matter(readFileSync(path.resolve(__dirname, `../../content/legal/${slug}.mdx`), "utf8")).content.replace(/\s+/g, " ");

/** The text of the `## ` section whose heading matches, up to the next. */
function section(slug: string, heading: RegExp): string {
  const parts = text(slug).split(/ ?## /);
  const found = parts.find((part) => heading.test(part.slice(0, part.search(/[.:]|$/))));
  if (!found) throw new Error(`${slug}.mdx has no section matching ${heading}`);
  return found;
}

const privacy = site.legalPages.privacyPolicy.slug;
const { statement } = site.waitlist.consent;

describe("the consent statement", () => {
  it("names every policy that promises to e-mail a change to it: 'nothing else' leaves none out", () => {
    for (const page of Object.values(site.legalPages)) {
      const changes = section(page.slug, /^Changes/);
      if (/e-mail/.test(changes)) expect([page.title, statement]).toEqual([page.title, expect.stringContaining(page.title)]);
    }
  });
});

describe("a significant change, announced", () => {
  // cli/announce.test.ts holds the rest: npm run waitlist -- announce-policy-change mails the confirmed, and nobody else.
  it.each(Object.values(site.legalPages))("$title promises the e-mail a founder sends when it is posted, not before", ({ slug }) => {
    const changes = section(slug, /^Changes/);
    expect(changes).toMatch(/If the changes are significant, we e-mail (that note, with a link to this page, to the waitlist members who confirmed|you that note).* when we post them/);
    expect(changes).not.toMatch(/before they take effect/);
    // Only the confirmed are mailed anything but the one e-mail asking to confirm (cli/announce.test.ts).
    expect(changes).not.toMatch(/we e-mail you\b/);
  });
});

describe("the Privacy Policy on who hosts the site", () => {
  it("names the host the build was made for (<HostingProvider />), never Netlify by hand: a self-hosted site has another", () => {
    const sharing = section(privacy, /^Sharing/);
    expect(sharing).toContain("our hosting provider, <HostingProvider />, which serves the website");
    expect(text(privacy)).not.toMatch(/Netlify/);
  });
});

describe("the Privacy Policy on age", () => {
  it("says who may join, by the Terms' ages, and that a parent's permission covers the GDPR's consent under 16", () => {
    const children = section(privacy, /^Children/);
    expect(children).toContain("at least <MinimumAge /> years old to join the waitlist");
    expect(children).toMatch(/If you are under <ParentalPermissionAge \/>, you may join only with the permission of a parent or guardian/);
    expect(children).toMatch(/under 16 .*\(Art\. 8 GDPR\)/);
    expect(site.parentalPermissionUnder).toBeGreaterThanOrEqual(16);
  });

  it("says in both documents what the waitlist asks (the statement beside the form) and what it does not check", () => {
    const terms = site.legalPages.termsOfService.slug;
    const asked = `Join only if you are ${site.minimumAge} or older, and if you are under ${site.parentalPermissionUnder}, only with a parent's or guardian's permission.`;
    expect(statement).toContain(asked);
    const children = section(privacy, /^Children/);
    const eligibility = section(terms, /^Eligibility/);
    for (const document of [children, eligibility]) {
      expect(document).toContain("The waitlist asks for no age");
      expect(document).toMatch(
        /you tell us that you are <MinimumAge \/> or older and, if you are under <ParentalPermissionAge \/>, that a parent or guardian has allowed it/,
      );
      expect(document).toMatch(/We take your word for it: we do not check your age,? (we do not )?(or )?ask a parent to confirm/);
    }
    // No form, page or link lets a parent accept anything: the Terms must not say one does.
    expect(text(terms)).not.toMatch(/on your behalf/);
    expect(eligibility).toContain("there is no way yet for a parent to accept these Terms with us");
  });
});

describe("the Privacy Policy on what the waitlist keeps", () => {
  const collect = section(privacy, /^Information We Collect/);
  const keeping = section(privacy, /^How Long We Keep/);
  const day = 86_400_000;
  const t0 = new Date("2026-11-26T10:00:00Z");
  const later = (days: number) => new Date(t0.getTime() + days * day);
  let store: SqliteStore;
  beforeEach(() => {
    store = new SqliteStore(":memory:");
  });
  afterEach(() => store.close());
  const entry = (email: string) => ({ email, emailKey: email, source: "start" as const });

  it("keeps the page a signup was made on, with a campaign tag or without, and says so", async () => {
    const own = [testSite.siteUrl];
    expect(attributionFrom(`${testSite.siteUrl}/`, own).landingPath).toBe("/");
    expect(attributionFrom(`${testSite.siteUrl}/?utm_source=tiktok`, own)).toMatchObject({
      landingPath: "/",
      utmSource: "tiktok",
    });
    expect(collect).toMatch(
      /we keep that page's path \(such as `\/`\) with your signup, whether or not the link you came by carried a campaign tag/,
    );
  });

  it("keeps of a repeat signup a count, and the first signup's details as they were", async () => {
    const tiktok = attributionFrom(`${testSite.siteUrl}/?utm_source=tiktok`, [testSite.siteUrl]);
    const other = attributionFrom(`${testSite.siteUrl}/?utm_source=newsletter`, [testSite.siteUrl]);
    expect((await store.add({ ...entry("a@example.com"), attribution: tiktok, at: t0 })).added).toBe(true);
    expect((await store.add({ ...entry("a@example.com"), attribution: other, at: later(1) })).added).toBe(false);
    expect(await store.all()).toEqual([expect.objectContaining({ createdAt: t0.toISOString(), utmSource: "tiktok" })]);
    expect(collect).toMatch(/If your address is entered again, we count how many times, and keep the details of its first signup as they were\./);
  });

  it("keeps the mail server's answer to an e-mail not delivered until a later one is, and says so", async () => {
    await store.add({ ...entry("b@example.com"), at: t0 });
    await store.claimConfirmation("b@example.com", { now: t0, leaseMs: 60_000 });
    await store.releaseConfirmation("b@example.com", "451 4.2.1 Mailbox busy, try later", later(0.01));
    expect((await store.all())[0]!.confirmationError).toBe("451 4.2.1 Mailbox busy, try later");
    await store.claimConfirmation("b@example.com", { now: later(0.02), leaseMs: 60_000 });
    await store.markConfirmationSent("b@example.com", later(0.02));
    expect((await store.all())[0]!.confirmationError).toBeNull();
    expect(collect).toMatch(
      /If it could not be delivered, we keep the mail server's answer \(such as "mailbox unavailable"\) with your signup until a later e-mail is delivered or your address is deleted\./,
    );
  });

  it("logs a request without its IP address or any e-mail address, and an e-mail that failed by a shortened address", async () => {
    const lines: string[] = [];
    const app = express()
      .use(requestLog((line) => lines.push(line)))
      .use((_req, res) => void res.status(303).end());
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}/?email=maya%40example.com`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "form-name=waitlist&email=maya%40example.com",
      });
    } finally {
      server.close();
    }
    expect(lines).toEqual([expect.stringMatching(/^\S+Z POST \/ 303 [\d.]+ms\n$/)]);
    expect(lines.join("")).not.toMatch(/127\.0\.0\.1|maya/);

    await store.add({ ...entry("maya@example.com"), at: t0 });
    const logged: string[] = [];
    const failing = { destination: "test", send: () => Promise.reject(new Error("connection lost")), close() {} };
    const confirmations = createConfirmations({ ...testSite, store, mailer: failing, linkSecret: "s".repeat(32), log: (line) => logged.push(line) });
    await confirmations.resendPending();
    expect(logged).toEqual([expect.stringContaining(maskEmail("maya@example.com"))]);
    expect(logged.join("")).not.toContain("maya@example.com");

    const visiting = section(privacy, /^Information We Collect/);
    expect(visiting).toMatch(
      /Our own logs record, for each request, its time, the page asked for and our answer, never your IP address or e-mail address; when an e-mail to you fails, they name the address shortened \(such as `y\*\*\*@example\.com`\)\./,
    );
    // The request log goes to the writer it is handed (npm start's standard output, a function's log on Netlify):
    // the server keeps no file of its own to delete, so the policy says whose setting deletes them.
    expect(keeping).toMatch(
      /We delete our logs after 30 days at most: our server keeps no copy of its own, and writes each line to the log of the machine it runs on, which our hosting provider or we set to delete them by then\./,
    );
  });

  it("says in the repeat e-mail, as in the policy, that the deletion counts from the first request, and so it does", async () => {
    const messages: MailMessage[] = [];
    let now = t0;
    const mailer = { destination: "test", send: async (message: MailMessage) => void messages.push(message), close() {} };
    const confirmations = createConfirmations({ ...testSite, store, mailer, linkSecret: "s".repeat(32), clock: () => now, log: () => {} });
    const { createdAt } = await store.add({ ...entry("c@example.com"), at: t0 });
    const settled = async () => {
      // sendSoon and askAgainSoon start after the caller's turn, as after a reply.
      await new Promise((resolve) => setImmediate(resolve));
      await confirmations.idle();
    };
    confirmations.sendSoon({ email: "c@example.com", emailKey: "c@example.com", createdAt, askedSince: createdAt });
    await settled();
    now = later(10);
    confirmations.askAgainSoon("c@example.com");
    await settled();
    await confirmations.close();
    expect(messages).toHaveLength(2);
    const promise = `we delete the address ${site.waitlist.unconfirmedRetentionDays} days after we first asked you to confirm it, whether or not you sign up again`;
    for (const message of messages) {
      expect(message.text.replace(/\s+/g, " ")).toContain(promise);
      expect(message.html.replace(/\s+/g, " ")).toContain(promise);
    }
    // 31 days after the first request, 21 after the repeat: gone.
    expect((await pruneUnconfirmed(store, { now: later(31) })).addresses.map(({ email }) => email)).toEqual(["c@example.com"]);
    // Counted from the signup, as the retention counts it (optInSince), however late the first e-mail went (issue 67).
    expect(section(privacy, /^Your Choices/)).toMatch(
      /we delete your address <UnconfirmedRetention \/> after you signed up, the moment from which we ask you to confirm it \(even if our e-mail went later, or never reached you\), even if you sign up again in between/,
    );
  });

  it("keeps a signup from before the confirm step, unasked, until a founder asks it once, then the same 30 days", async () => {
    await store.add({ ...entry("early@example.com"), at: t0, earlier: true, confirmationSentAt: t0 });
    expect((await pruneUnconfirmed(store, { now: later(400) })).addresses).toEqual([]);
    expect(await store.askToConfirm("early@example.com", later(400))).toBeDefined();
    expect((await pruneUnconfirmed(store, { now: later(429) })).addresses).toEqual([]);
    expect((await pruneUnconfirmed(store, { now: later(431) })).addresses.map(({ email }) => email)).toEqual([
      "early@example.com",
    ]);
    expect(keeping).toMatch(
      /our earlier waitlist form, we keep it, and send it no e-mail, until we ask you, once, to confirm it; we will do so before the marketplace launches, and the same <UnconfirmedRetention \/> run from then\./,
    );
  });
});

describe("the Privacy Policy on leaving, the launch mailing service and previews (issue 43)", () => {
  const keep = () => section(privacy, /^How Long/);
  const day = 86_400_000;

  it("names the launch mailing service (<LaunchMailTool />) as a processor that gets each address with its leave link", () => {
    expect(section(privacy, /^Sharing/)).toContain(
      "the mailing service that sends the launch e-mail for us, <LaunchMailTool />: for each person we let in, we give it three things and nothing else",
    );
  });

  it("keeps a keyed fingerprint of a leaver the launch mailing service had for <LeaverRetention />, then deletes it; the count names nobody", async () => {
    expect(keep()).toContain(
      "For <LeaverRetention /> we also keep, with that count, a fingerprint of your address made with a secret key of ours, if we had given your address to our launch mailing service",
    );
    expect(site.waitlist.leaverDigestRetentionDays).toBe(90);
    const store = new SqliteStore(":memory:");
    const left = new Date("2026-01-01T12:00:00Z");
    for (const email of ["ada@example.com", "cy@example.com"]) {
      await store.add({ email, emailKey: email, source: "start", at: left });
      await store.confirm(email, { createdAt: left.toISOString(), at: left, privacyPolicy: null });
    }
    // Ada's wave went to the launch mailing service; Cy confirmed, and was let in by our own e-mail.
    await store.letIn("ada@example.com", { wave: 1, at: left, createdAt: left.toISOString(), mail: false });
    await store.letIn("cy@example.com", { wave: 2, at: left, createdAt: left.toISOString(), mail: true });
    await store.add({ email: "bo@example.com", emailKey: "bo@example.com", source: "start", at: left });
    await store.remove("ada@example.com", "link", left, "f".repeat(32));
    // Never given to the tool (never confirmed, or mailed by us): no fingerprint of it is kept.
    await store.remove("cy@example.com", "link", left, "d".repeat(32));
    await store.remove("bo@example.com", "link", left, "e".repeat(32));
    // The day's pass keeps it while its days last, and then deletes it; the departure stays.
    await pruneUnconfirmed(store, { now: new Date(left.getTime() + 89 * day) });
    expect(await store.leaverDigests(new Date(0))).toHaveLength(1);
    await pruneUnconfirmed(store, { now: new Date(left.getTime() + 91 * day) });
    expect(await store.leaverDigests(new Date(0))).toEqual([]);
    expect(await store.departureCounts()).toEqual({ left: 3, pruned: 0, afterWave: 0 });
    await store.close();
  });

  it("counts an inbox's confirmation e-mails for two days under a fingerprint, never its address", async () => {
    expect(keep()).toContain("we count for two days how many confirmation e-mails each inbox was sent, under such a fingerprint too, never its address");
    const store = new SqliteStore(":memory:");
    const at = new Date("2026-01-01T12:00:00Z");
    await store.countMailboxMail("c".repeat(32), "2026-01-01");
    await pruneUnconfirmed(store, { now: new Date(at.getTime() + day) });
    expect(await store.countMailboxMail("c".repeat(32), "2026-01-01")).toBe(2);
    await pruneUnconfirmed(store, { now: new Date(at.getTime() + 2 * day) });
    expect(await store.countMailboxMail("c".repeat(32), "2026-01-01")).toBe(1);
    await store.close();
  });

  it("says a preview keeps nothing (test/server/netlify-functions.test.ts holds it)", () => {
    expect(keep()).toContain("A signup there gets the same answer as on the site, but nothing is kept and no e-mail is sent.");
  });
});

describe("the Privacy Policy on invites (issue 44)", () => {
  // test/server/invites.test.ts holds the rest: the page shows a count and no invitee, and each rule of the count.
  const collect = () => section(privacy, /^Information We Collect/);

  it("says what an invite keeps, and who sees what: the inviter a count, the founders who invited whom, as the export shows", async () => {
    expect(collect()).toContain("If someone signs up on a page your link opened, we keep that code with their signup");
    expect(collect()).toContain("a count, never who; each mailbox counts once, yours never, and someone who leaves no longer counts");
    expect(collect()).toContain(
      "the list they work from shows, for each signup, its address, its own invite code and the code of the link it came by, so they can tell who invited whom, and how many confirmed creators each person brought. They rank the inviters by that number",
    );
    // The founders' list (npm run waitlist -- export --order invites): the invitee's row names the inviter's code.
    const dir = mkdtempSync(path.join(os.tmpdir(), "policy-invites-"));
    try {
      const env = { WAITLIST_DB: path.join(dir, "waitlist.db") };
      const store = new SqliteStore(env.WAITLIST_DB);
      const at = new Date("2026-11-26T10:00:00Z");
      await store.add({ email: "maya@example.com", emailKey: "maya@example.com", source: "start", at, mailboxDigest: "m".repeat(32) });
      const { inviteCode } = (await store.confirm("maya@example.com", { createdAt: at.toISOString(), at, privacyPolicy: null }))!;
      await store.add({ email: "bo@example.com", emailKey: "bo@example.com", source: "start", at, invitedBy: inviteCode, mailboxDigest: "b".repeat(32) });
      await store.confirm("bo@example.com", { createdAt: at.toISOString(), at, privacyPolicy: null });
      await store.close();
      const rows = JSON.parse(await run(["export", "--record", "--format", "json", "--order", "invites"], env)) as Record<string, unknown>[];
      expect(rows.map(({ email, inviteCode: code, invitedBy, confirmedInvites }) => ({ email, code, invitedBy, confirmedInvites }))).toEqual([
        { email: "maya@example.com", code: inviteCode, invitedBy: null, confirmedInvites: 1 },
        { email: "bo@example.com", code: expect.any(String), invitedBy: inviteCode, confirmedInvites: 0 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says the code is random and says nothing about the inviter, as newInviteCode makes it", () => {
    expect(collect()).toContain("a code of random letters, which says nothing about you");
    const codes = Array.from({ length: 200 }, () => newInviteCode());
    expect(new Set(codes).size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9_-]{12}$/);
  });
});

describe("the Privacy Policy on letting people in at launch (issue 51)", () => {
  const use = () => section(privacy, /^How We Use/);
  const sharing = () => section(privacy, /^Sharing/);

  it("gives the launch mailing service what it says, and nothing else: the export --launch file's columns", async () => {
    expect(sharing()).toContain(
      "we give it three things and nothing else: the address, that person's own link to leave, and the wave they were let in with",
    );
    expect(launchColumns).toEqual(["email", "leaveUrl", "wave"]);
    const dir = mkdtempSync(path.join(os.tmpdir(), "policy-launch-"));
    // The site whose Privacy Policy names the tool: the commands ask it before the list goes anywhere.
    const policySite = await startPolicySite("Intuit Inc. (Mailchimp, United States)");
    try {
      const env = { WAITLIST_DB: path.join(dir, "waitlist.db"), SITE_URL: policySite.url };
      const store = new SqliteStore(env.WAITLIST_DB);
      const at = new Date("2026-11-26T10:00:00Z");
      await store.add({ email: "maya@example.com", emailKey: "maya@example.com", source: "start", at, mailboxDigest: "m".repeat(32) });
      await store.confirm("maya@example.com", { createdAt: at.toISOString(), at, privacyPolicy: null });
      await store.add({ email: "bo@example.com", emailKey: "bo@example.com", source: "start", at, mailboxDigest: "b".repeat(32) });
      await store.letIn("maya@example.com", { wave: 1, at, createdAt: at.toISOString(), mail: false });
      await store.close();
      const out = path.join(dir, "launch.json");
      await run(["export", "--launch", "--format", "json", "--out", out], env);
      const rows = JSON.parse(readFileSync(out, "utf8")) as Record<string, string>[];
      // Only those let in; for each, the address, a leave link to this site and the wave.
      expect(rows.map((row) => Object.keys(row))).toEqual([[...launchColumns]]);
      expect(rows[0]).toEqual({
        email: "maya@example.com",
        leaveUrl: expect.stringMatching(/\/waitlist\/leave\?token=/),
        wave: 1,
      });
    } finally {
      await policySite.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says what the tool keeps, and the founders' guide says how to make it so", () => {
    expect(sharing()).toContain(
      "It keeps them for that wave's e-mail only: once the e-mail is sent and its bounces and unsubscribes have come back to us, within 30 days, we delete them there.",
    );
    const founders = readFileSync(path.resolve(__dirname, "../../docs/founders.md"), "utf8").replace(/\s+/g, " ");
    expect(founders).toContain("within 30 days of sending its mail");
  });

  it("says how people are let in, a wave at a time, by signup order or by invites, and the basis of ranking inviters", () => {
    expect(use()).toContain(
      "We fill each wave in one of two orders: by signup order, first come, first served; or by invites, those who brought the most confirmed creators first, and among those who brought as many, whoever signed up first. Ranking inviters so rests on our legitimate interest in giving early access first to the creators who brought others (Art. 6(1)(f) GDPR)",
    );
    // The legal bases list the same interest, and the right to object names the ranking.
    expect(use()).toMatch(/giving early access first to the creators who brought others, for which we keep the invite code .* rank inviters by them \(Art\. 6\(1\)\(f\)\)/);
    expect(section(privacy, /^Your Right to Object/)).toContain("ranking you by the creators you invited");
  });
});

describe("the Privacy Policy on the launch e-mail's tracking (issue 61)", () => {
  it("says the launch e-mail is not tracked, whoever sends it, and names the mailing service's tracking as turned off", () => {
    expect(section(privacy, /^Cookies/)).toContain(
      "**The launch e-mail is not tracked either**, whether we send it ourselves or our launch mailing service sends it for us: it contains no tracking images, its links are not rewritten to pass through the mailing service's servers but lead straight to where they say, and neither we nor that service record whether or when you open it, or which of its links you click.",
    );
    expect(section(privacy, /^Sharing/)).toContain(
      "<LaunchMailTool />: for each person we let in, we give it three things and nothing else",
    );
    expect(section(privacy, /^Sharing/)).toContain(
      "It sends that e-mail with its open and click tracking turned off, so it records neither whether you open it nor which of its links you click",
    );
  });

  it("sends its own launch e-mail (let-in) with no image, and every link straight to where it says", () => {
    const launchUrl = "https://app.jointandem.app/start";
    const { html } = letInMessage("ada@example.com", {
      emailKey: "ada@example.com",
      createdAt: "2026-11-20T09:00:00.000Z",
      wave: 1,
      linkSecret: "s".repeat(32),
      launchUrl,
      postalAddress: "Example Street 1, 10115 Berlin, Germany",
      ...testSite,
    });
    expect(html).not.toMatch(/<img|background-image|url\(/i);
    const links = [...html.matchAll(/href="([^"]*)"/g)].map(([, href]) => href!.replace(/&amp;/g, "&"));
    expect(links).toContain(launchUrl);
    for (const link of links) {
      expect([link, link === launchUrl || link.startsWith(`${testSite.siteUrl}/`) || link.startsWith("mailto:")]).toEqual([link, true]);
    }
  });

  it("has the founders turn the mailing tool's open and click tracking off, and check its links, before a wave goes", () => {
    const founders = readFileSync(path.resolve(__dirname, "../../docs/founders.md"), "utf8").replace(/\s+/g, " ");
    expect(founders).toContain("**Turn the tool's open and click tracking off before the mail goes.**");
    expect(founders).toContain("untick _Track opens_ and _Track clicks_");
    expect(founders).toContain("look where its button leads in the copy you receive: straight to `LAUNCH_URL`");
  });
});

describe("the Privacy Policy on bounces and spam complaints (issue 60)", () => {
  // test/server/mail-events.test.ts holds the rest: the providers' events over HTTP, on npm start and on Netlify.
  const said = () => section(privacy, /^How We Use/);
  const day = 86_400_000;
  const secret = "s".repeat(32);
  const at = new Date("2026-11-28T10:00:00Z");
  const event = (kind: "bounce" | "complaint", address: string) =>
    ({ provider: "postmark", id: `${kind}-${address}`, kind, permanent: true, address, at: at.toISOString() }) as const;

  it("e-mails an address that bounced for good no more: a member is kept but sent nothing, an unconfirmed signup is not asked again", async () => {
    expect(said()).toContain(
      "Our e-mail provider tells us when an e-mail to you bounced for good (the address does not exist, or takes no mail any more): we e-mail that address no more. If you had not confirmed yet, we do not ask you again; if you had, you stay on the waitlist, but we send you nothing, and we delete your entry <UndeliverableRetention /> after the bounce.",
    );
    const store = new SqliteStore(":memory:");
    for (const email of ["member@example.com", "new@example.com"]) await store.add({ email, emailKey: email, source: "start", at });
    await store.confirm("member@example.com", { createdAt: at.toISOString(), at, privacyPolicy: null });
    for (const email of ["member@example.com", "new@example.com"]) await actOnMailEvent(event("bounce", email), { store, fingerprintKey: fingerprintKeyFrom(secret), clock: () => at });
    expect((await store.all()).map(({ email, state }) => [email, state])).toEqual([
      ["member@example.com", "undeliverable"],
      ["new@example.com", "refused"],
    ]);
    // A repeat signup a day on does not ask it again.
    expect(await store.askToConfirm("new@example.com", new Date(at.getTime() + 2 * day), { resendAfterMs: day })).toBeUndefined();
    await store.close();
  });

  it("takes a spam complaint as a leave: the entry deleted at once, counted as a departure that names nobody", async () => {
    expect(said()).toContain(
      "If you mark one of our e-mails as spam and your mail provider tells ours (many do not: Gmail and most other large ones tell a sender nothing, so to leave, use the link in every e-mail), we take it as your wish to leave: we delete your entry at once, as if you had used the link to leave.",
    );
    expect(section(privacy, /^How Long/)).toContain("(a link, ours or our launch mailing service's, your mail app's button, a request to us, a spam complaint, or an e-mail that bounced for good), which names nobody");
    const store = new SqliteStore(":memory:");
    await store.add({ email: "grumpy@example.com", emailKey: "grumpy@example.com", source: "start", at });
    await actOnMailEvent(event("complaint", "grumpy@example.com"), { store, fingerprintKey: fingerprintKeyFrom(secret), clock: () => at });
    expect(await store.all()).toEqual([]);
    expect(await store.departureCounts()).toEqual({ left: 1, pruned: 0, afterWave: 0 });
    await store.close();
  });

  it("keeps a keyed fingerprint of the inbox for <SuppressionRetention />, whatever the spelling, then deletes it; and says on what basis", async () => {
    expect(said()).toContain(
      "Either way we keep, for <SuppressionRetention />, a fingerprint of the inbox the e-mail went to, made with a secret key of ours, and nothing else: it cannot be turned back into your address, and it keeps us from e-mailing that inbox again during that time, even if the address is signed up anew (that signup gets the same answer as any other, but no e-mail); then it is deleted.",
    );
    expect(said()).toContain(
      "This rests on our legitimate interest in keeping our e-mail deliverable and in not e-mailing anyone who does not want it (Art. 6(1)(f) GDPR); the fingerprint also meets what our e-mail provider's rules and the anti-spam rules require of us",
    );
    expect(section(privacy, /^How Long/)).toContain("we keep such a fingerprint of its inbox for <SuppressionRetention />");
    expect(site.waitlist.suppressionRetentionDays).toBe(180);
    const store = new SqliteStore(":memory:");
    await store.add({ email: "Anna@example.com", emailKey: "anna@example.com", source: "start", at });
    await actOnMailEvent(event("complaint", "Anna@example.com"), { store, fingerprintKey: fingerprintKeyFrom(secret), clock: () => at });
    // Another spelling of the inbox is held too; the day's pass keeps the fingerprint while its days last, then deletes it.
    const held = (days: number) => suppressedUntil(store, secret, "anna+again@example.com", new Date(at.getTime() + days * day));
    await pruneUnconfirmed(store, { now: new Date(at.getTime() + 179 * day) });
    expect(await held(179)).toBe(new Date(at.getTime() + 180 * day).toISOString());
    await pruneUnconfirmed(store, { now: new Date(at.getTime() + 181 * day) });
    // Gone from the store, not only past its time: the next pass at an earlier clock finds none either.
    expect(await held(0)).toBeUndefined();
    await store.close();
  });
});

describe("the Privacy Policy on the mail provider, the undeliverable, and copies (issue 67)", () => {
  const day = 86_400_000;
  const at = new Date("2026-12-02T10:00:00Z");

  it("names the mail provider, its own suppression list under its own terms, and how to get off it; the founders' guide says how", () => {
    const sharing = section(privacy, /^Sharing/);
    expect(sharing).toContain(
      "the e-mail provider that delivers our e-mails to your inbox, <MailProvider />, which also keeps, under its own terms and for as long as they say, a suppression list of its own: the addresses whose e-mail from us bounced for good or that marked one as spam, each with the address itself, to which it delivers nothing of ours while they are on it. To be taken off that list, write to <ContactEmail />: we ask <MailProvider /> to remove your address, and tell you when it has;",
    );
    const founders = readFileSync(path.resolve(__dirname, "../../docs/founders.md"), "utf8");
    const guide = founders.slice(founders.indexOf("## The mail provider's own suppression list"));
    for (const provider of ["Amazon SES", "Resend", "Postmark"]) expect(guide).toContain(`**${provider}**`);
  });

  it("deletes a member whose e-mail bounced for good <UndeliverableRetention /> after the bounce, and no sooner", async () => {
    expect(site.waitlist.undeliverableRetentionDays).toBe(180);
    expect(section(privacy, /^How Long/)).toContain(
      "If our e-mail to a member bounced for good, we delete the entry <UndeliverableRetention /> after the bounce.",
    );
    const store = new SqliteStore(":memory:");
    await store.add({ email: "gone@example.com", emailKey: "gone@example.com", source: "start", at });
    await store.confirm("gone@example.com", { createdAt: at.toISOString(), at, privacyPolicy: null });
    const bounce = { provider: "postmark", id: "b1", kind: "bounce", permanent: true, address: "gone@example.com", at: at.toISOString() } as const;
    await actOnMailEvent(bounce, { store, fingerprintKey: fingerprintKeyFrom("s".repeat(32)), clock: () => at });
    await pruneUnconfirmed(store, { now: new Date(at.getTime() + 179 * day) });
    expect((await store.all()).map(({ state }) => state)).toEqual(["undeliverable"]);
    const { undeliverable } = await pruneUnconfirmed(store, { now: new Date(at.getTime() + 181 * day) });
    expect(undeliverable.map(({ email }) => email)).toEqual(["gone@example.com"]);
    expect(await store.all()).toEqual([]);
    await store.close();
  });

  it("says what becomes of an export, as the export itself tells the founder, and of backups", () => {
    expect(section(privacy, /^How Long/)).toContain(
      "When our founders answer a question or a request of yours, or check our figures, they may export the waitlist, or your entry alone, to a file: they delete it once that is answered, within a month at most.",
    );
    expect(section(privacy, /^How Long/)).toContain("each backup is deleted within 30 days");
  });
});

describe("the right to object (Art. 21(4) GDPR)", () => {
  it("has a section of its own in the Privacy Policy, which the first e-mail sets out apart and links to", () => {
    const heading = text(privacy).match(/## (Your Right to Object)/)?.[1];
    // The id the page gives the heading (rehype-slug, as GitHub slugs a heading).
    expect(heading?.toLowerCase().replace(/[^\w\s-]/g, "").replace(/\s+/g, "-")).toBe(objectAnchor);
    expect(section(privacy, /^Your Right to Object/)).toMatch(/You have the right to object, at any time/);

    const mail = confirmationMessage("maya@example.com", {
      ...testSite,
      seed: "maya",
      createdAt: "2026-11-27T10:00:00.000Z",
      linkSecret: "s".repeat(32),
    });
    const link = `${testSite.siteUrl}${site.routes.privacyPolicy}#${objectAnchor}`;
    // A paragraph of its own, not a clause of another.
    expect(mail.text.split("\n\n")).toContainEqual(
      expect.stringMatching(new RegExp(`^Your right to object: you may object at any time .*How to object: ${link.replace(/[.?]/g, "\\$&")}\n?$`)),
    );
    expect(mail.html).toMatch(
      new RegExp(`<p [^>]*>Your right to object: you may object at any time [^<]*<a href="${link.replace(/[.?]/g, "\\$&")}"[^>]*>How to object</a>\\.</p>`),
    );
  });

  it("names in the first e-mail each use the policy's section names, the ranking by invites too (issue 61)", () => {
    const mail = confirmationMessage("maya@example.com", {
      ...testSite,
      seed: "maya",
      createdAt: "2026-11-27T10:00:00.000Z",
      linkSecret: "s".repeat(32),
    });
    const object = mail.text.split("\n\n").find((paragraph) => paragraph.startsWith("Your right to object:"))!;
    const uses = section(privacy, /^Your Right to Object/);
    for (const [policy, inMail] of [
      ["keeping the page and campaign tag you signed up with", "the page, campaign tag and invite code you signed up with"],
      ["keeping the invite code of the link you came by", "the page, campaign tag and invite code you signed up with"],
      ["ranking you by the creators you invited", "ranking you by the creators you invited"],
      ["the records we keep to prove your consent and to keep the site secure", "the records we keep to prove your consent and to keep the site secure"],
      ["our e-mails about early access", "our e-mails"],
    ]) {
      expect(uses).toContain(policy);
      expect(object).toContain(inMail);
    }
  });
});

describe("when early access opens: a wave at a time (issue 61)", () => {
  it("promises an e-mail when a person's wave opens, not as soon as early access opens", () => {
    const mail = confirmationMessage("maya@example.com", {
      ...testSite,
      seed: "maya",
      createdAt: "2026-11-27T10:00:00.000Z",
      linkSecret: "s".repeat(32),
    });
    // test/server/confirm-link.test.ts holds the confirm page to the same.
    for (const said of [mail.text, mail.html]) expect(said.replace(/\s+/g, " ")).not.toMatch(/as soon as early access/);
    expect(mail.text.replace(/\s+/g, " ")).toContain(
      `We plan to launch in ${site.claims.launch}. Early access opens a wave at a time, in the order of signup or by the creators each person invited, and we will e-mail you when it opens for you.`,
    );
    // The order is the policy's: by signup, or by invites.
    expect(section(privacy, /^How We Use/)).toContain("We fill each wave in one of two orders: by signup order");
  });
});

describe("the Privacy Policy on objections, restriction and the end of an entry after its wave (issue 61)", () => {
  // cli/let-in.test.ts holds each objection and the restriction as the founders' commands carry them out,
  // cli/announce.test.ts whom an announcement skips, waitlist/prune.test.ts the daily pass after a wave.
  const day = 86_400_000;

  it("says what each objection does, as object --to does it", async () => {
    const object = section(privacy, /^Your Right to Object/);
    expect(object).toContain("**the page and campaign tag**: we delete both from your entry");
    expect(object).toContain("**the invite code of the link you came by**: we delete it from your entry, so you count for no inviter");
    expect(object).toContain("**the ranking**: your invites count as none when we fill a wave by invites");
    expect(object).toContain("**the records of your consent**: we keep them");
    const dir = mkdtempSync(path.join(os.tmpdir(), "policy-objections-"));
    try {
      const env = { WAITLIST_DB: path.join(dir, "waitlist.db") };
      const store = new SqliteStore(env.WAITLIST_DB);
      const at = new Date("2026-11-26T10:00:00Z");
      const attribution = attributionFrom("https://jointandem.app/?utm_source=tiktok&ref=maya", ["https://jointandem.app"]);
      await store.add({ email: "maya@example.com", emailKey: "maya@example.com", source: "start", at, attribution });
      await store.close();
      await run(["object", "maya@example.com", "--to", "attribution"], env);
      const [row] = JSON.parse(await run(["export", "--record", "--format", "json"], env)) as Record<string, unknown>[];
      expect(row).toMatchObject({ utmSource: null, ref: null, landingPath: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says what a restriction does, and keeps a restricted entry from the time limits", async () => {
    expect(section(privacy, /^Your Choices/)).toContain(
      "we send you no e-mail, let you in with no wave, count you in none of our figures of signups, sources or invites, and none of our time limits deletes it meanwhile. Leaving the waitlist still deletes it at once.",
    );
    const store = new SqliteStore(":memory:");
    const at = new Date("2026-01-01T12:00:00Z");
    await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start", at });
    await store.restrict("ada@example.com", at);
    await pruneUnconfirmed(store, { now: new Date(at.getTime() + 40 * day) });
    expect(await store.count()).toBe(1);
    await store.remove("ada@example.com", "link", at);
    expect(await store.count()).toBe(0);
    await store.close();
  });

  it("keeps an entry <LetInRetention /> after the wave that let its person in, and announces nothing to them after it", async () => {
    expect(section(privacy, /^How Long/)).toContain(
      "until you leave the waitlist, until <LetInRetention /> after the wave that let you in, or until we close the waitlist, whichever comes first",
    );
    expect(section(privacy, /^How We Use/)).toContain(
      "we announce no later change of our policies to you, and we delete your waitlist entry <LetInRetention /> after your wave",
    );
    expect(section(privacy, /^Changes/)).toContain("to the waitlist members who confirmed and whom we have not let in yet");
    expect(site.waitlist.letInRetentionDays).toBe(90);
  });

  it("says a wave by invites takes the top of the ranking, as let-in does: the founders choose the size and the order", () => {
    expect(section(privacy, /^Information We Collect/)).toContain(
      "how many a wave takes, and whether it goes by invites or by signup order, is theirs to decide; who is in it, the ranking decides",
    );
    expect(section(privacy, /^Information We Collect/)).not.toContain("the founders choose, and the ranking is what they choose from");
  });

  it("names what we record when we let someone in, and of their objections and restriction, as the export has them", () => {
    const collect = section(privacy, /^Information We Collect/);
    expect(collect).toContain("we record the wave you were let in with and when, and how our e-mail letting you in went");
    expect(collect).toContain("which of our e-mails announcing a change to our policies we sent you");
    expect(collect).toContain("we record what and when, with your entry");
  });
});
