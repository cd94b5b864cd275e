import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ParsedMail } from "mailparser";
import { resultPagePolicy } from "../../waitlist/endpoints/pages";
import { confirmToken, legacyConfirmToken } from "../../waitlist/tokens";
import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { consentRecord } from "../../waitlist/policies";
import { testPolicy } from "../support/site-settings";
import {
  form,
  formType,
  removeDir,
  request,
  serverForEachTest,
  signupBody,
  signUpForMail,
  type Adapter,
  type TestServer,
  writePublicDir,
} from "../support/harness";
import { spawnServe } from "../support/process";
import { sqliteSignups } from "../support/sqlite";
import { atServer, leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";

/*
 * The confirm step (double opt-in) over real HTTP and SMTP, on npm start,
 * gatsby develop and Netlify's functions: the link in the e-mail, its page,
 * its button, and what the store keeps.
 */

jest.setTimeout(patience(30_000));

let smtp: TestSmtpServer;
beforeEach(async () => {
  smtp = await startSmtpServer();
});
afterEach(() => smtp.close());

const confirmPattern = /https?:\/\/[^\s"<>]+\/waitlist\/confirm\?token=[A-Za-z0-9_.-]+/g;

/** Every place a confirm link appears in a message: its text, its HTML, its headers. */
function confirmLinks(mail: ParsedMail) {
  const html = String(mail.html).replaceAll("&amp;", "&");
  const headers = mail.headerLines.map((line) => line.line).join("\n");
  return {
    text: [...(mail.text ?? "").matchAll(confirmPattern)].map((match) => match[0]),
    html: [...html.matchAll(confirmPattern)].map((match) => match[0]),
    headers: [...headers.matchAll(confirmPattern)].map((match) => match[0]),
  };
}

const signUp = (server: TestServer, email: string) => signUpForMail(server, smtp, email);
/** The link from the e-mail, pointed at the test server (links point at SITE_URL). */
const local = (server: TestServer, link: string) => atServer(server.url, link);
const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

const press = (server: TestServer, token: string, headers: Record<string, string> = {}) =>
  request(`${server.url}/waitlist/confirm`, {
    method: "POST",
    headers: { ...formType, Accept: "text/html", Origin: server.url, ...headers },
    body: form({ token }),
  });

const stored = async (server: TestServer, email: string) =>
  (await server.signups()).find((signup) => signup.email === email);

describe.each<Adapter>(["start", "develop", "netlify"])("the confirm link through the %s adapter", (adapter) => {
  const server = serverForEachTest(adapter, () => ({ smtpUrl: smtp.url }));

  it("is in the e-mail's text and its HTML button, the same link, and nowhere else", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const links = confirmLinks(mail);
    expect(links.text).toHaveLength(1);
    expect(links.html).toEqual(links.text);
    expect(links.headers).toEqual([]);
    expect(links.text[0]).toMatch(/^https:\/\/jointandem\.app\/waitlist\/confirm\?token=/);
    expect(String(mail.html)).toMatch(/<a href="[^"]+\/waitlist\/confirm\?token=[^"]+"[^>]*>Confirm my spot<\/a>/);
    expect(mail.text).toContain("Confirm my spot:\n");
    expect(mail.subject).toBe("Confirm your spot on the Tandem waitlist");
    // The leave link is another link, with another token.
    expect(tokenOf(leaveLinks(mail).text)).not.toBe(tokenOf(links.text[0]!));
  });

  it("GET and HEAD show the page with the button and change nothing", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const link = local(server(), confirmLinks(mail).text[0]!);
    const page = await request(link);
    expect(page.status).toBe(200);
    expect(page.body).toContain("<title>Confirm your spot on the waitlist? | Tandem</title>");
    expect(page.body).toContain("<h1>Confirm your spot on the waitlist?</h1>");
    // Neither the title nor the page shows the address: a shared screen or a scanner's report shows a masked form.
    expect(page.body).not.toContain("ada@example.com");
    expect(page.body).toContain("a***@example.com");
    // The Privacy Policy at the moment of consent, beside the button.
    expect(page.body).toMatch(
      /<\/button>\n<\/form>\n<p class="links">.*<a href="\/privacy-policy\/">Privacy Policy<\/a>/,
    );
    expect(page.body).toMatch(/<form method="post" action="\/waitlist\/confirm">/);
    expect(page.body).toContain(`<input type="hidden" name="token" value="${tokenOf(link)}">`);
    expect(page.body).toContain('<button type="submit">Confirm my spot</button>');
    // The one consent statement, as the form and the e-mail say it.
    expect(page.body).toContain(escapeHtml(site.waitlist.consent.statement));
    expect(mail.text).toContain(site.waitlist.consent.statement);
    expect(String(mail.html)).toContain(escapeHtml(site.waitlist.consent.statement));
    expect(page.headers["content-security-policy"]).toBe(resultPagePolicy);
    expect(page.headers["referrer-policy"]).toBe("strict-origin");
    expect(page.headers["x-robots-tag"]).toBe("noindex");
    const head = await request(link, { method: "HEAD" });
    expect([head.status, head.body]).toEqual([200, ""]);
    expect((await stored(server(), "ada@example.com"))?.confirmedAt).toBeNull();
  });

  it("the button confirms once; a second press keeps the first time and says so", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const token = tokenOf(confirmLinks(mail).text[0]!);
    const first = await press(server(), token);
    expect(first.status).toBe(200);
    expect(first.body).toContain("<h1>Your spot is confirmed.</h1>");
    // Waves decide when each gets in: the e-mail comes when it opens for them, not as soon as it opens (issue 61).
    expect(first.body).toContain("opens a wave at a time: we&#39;ll e-mail you when it opens for you.");
    const confirmedAt = (await stored(server(), "ada@example.com"))!.confirmedAt;
    expect(confirmedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The version of the policy in force: the date of its newest dated change (content/legal).
    expect(testPolicy.version).toMatch(/^\d{4}-\d\d-\d\d(\.\d+)?$/);
    expect((await stored(server(), "ada@example.com"))!.privacyPolicyAtConfirm).toBe(testPolicy.version);
    // What they were told they would receive, and the policy's exact text, at the signup and at the confirmation.
    expect(consentRecord(testPolicy)).toBe(
      `statement ${site.waitlist.consent.version}; Privacy Policy ${testPolicy.version} #${testPolicy.fingerprint}`,
    );
    expect(consentRecord(testPolicy)).toMatch(/#[0-9a-f]{12}$/);
    // And how: the form, then the button of the e-mailed link.
    expect(await stored(server(), "ada@example.com")).toMatchObject({
      consentAtSignup: `${consentRecord(testPolicy)}; by the waitlist form`,
      consentAtConfirm: `${consentRecord(testPolicy)}; by the "Confirm my spot" button of the link e-mailed to the address`,
    });

    const again = await press(server(), token);
    expect(again.status).toBe(200);
    expect(again.body).toContain("<h1>You&#39;re already confirmed.</h1>");
    expect((await stored(server(), "ada@example.com"))!.confirmedAt).toBe(confirmedAt);
    // The link's page says so too, without a button.
    const page = await request(local(server(), confirmLinks(mail).text[0]!));
    expect(page.body).toContain("already confirmed");
    expect(page.body).not.toContain("<button");
  });

  it.each<[string, (confirm: string, leave: string) => string]>([
    ["a tampered token", (confirm) => `${confirm.slice(0, -2)}${confirm.endsWith("A") ? "BB" : "AA"}`],
    ["a leave token", (_confirm, leave) => leave],
    [
      "a token signed with another secret",
      () => confirmToken("ada@example.com", new Date().toISOString(), "x".repeat(32)),
    ],
    [
      "an old-style token with the signature of another signup time",
      () => {
        const token = legacyConfirmToken("ada@example.com", "2026-01-01T00:00:00.000Z", "x".repeat(32));
        return token.replace(/\.[^.]+\./, `.${Buffer.from("2020-01-01T00:00:00.000Z").toString("base64url")}.`);
      },
    ],
    ["no token", () => ""],
  ])("refuses %s with 400, on the page and its button, and confirms nothing", async (_name, forge) => {
    const { mail } = await signUp(server(), "ada@example.com");
    const token = forge(tokenOf(confirmLinks(mail).text[0]!), tokenOf(leaveLinks(mail).text));
    const page = await request(`${server().url}/waitlist/confirm?token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(400);
    expect(page.body).toContain("This confirmation link is not valid.");
    expect((await press(server(), token)).status).toBe(400);
    expect((await stored(server(), "ada@example.com"))?.confirmedAt).toBeNull();
  });

  it("never removes with a confirm token: the leave link refuses it", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const token = tokenOf(confirmLinks(mail).text[0]!);
    const leave = await request(`${server().url}/waitlist/leave?token=${token}`, {
      method: "POST",
      headers: formType,
      body: "List-Unsubscribe=One-Click",
    });
    expect(leave.status).toBe(400);
    expect(await stored(server(), "ada@example.com")).toBeDefined();
  });

  it("offers “This wasn't me”: the leave page of that signup, whose button removes the address at once", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const page = await request(local(server(), confirmLinks(mail).text[0]!));
    const notMe =
      /<a href="(\/waitlist\/leave\?token=[A-Za-z0-9_.-]+)">This wasn&#39;t me: remove this address<\/a>/.exec(
        page.body,
      );
    expect(notMe).not.toBeNull();
    const link = notMe![1]!;
    // A GET (a scanner following the link) removes nothing; the leave page's button does.
    const leavePage = await request(`${server().url}${link}`);
    expect(leavePage.status).toBe(200);
    expect(leavePage.body).toContain('<button type="submit">');
    expect(await stored(server(), "ada@example.com")).toBeDefined();
    const left = await request(`${server().url}/waitlist/leave`, {
      method: "POST",
      headers: { ...formType, Accept: "text/html", Origin: server().url },
      body: form({ token: new URL(link, server().url).searchParams.get("token")! }),
    });
    expect(left.status).toBe(200);
    expect(await stored(server(), "ada@example.com")).toBeUndefined();
  });

  it("refuses the button's POST that says neither its origin nor that it is same-origin", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const token = tokenOf(confirmLinks(mail).text[0]!);
    const bare = await request(`${server().url}/waitlist/confirm`, {
      method: "POST",
      headers: { ...formType, Accept: "text/html" },
      body: form({ token }),
    });
    expect(bare.status).toBe(403);
    expect((await stored(server(), "ada@example.com"))?.confirmedAt).toBeNull();
    // A browser that sends Sec-Fetch-Site but no Origin is believed.
    const sameOrigin = await request(`${server().url}/waitlist/confirm`, {
      method: "POST",
      headers: { ...formType, Accept: "text/html", "Sec-Fetch-Site": "same-origin" },
      body: form({ token }),
    });
    expect(sameOrigin.status).toBe(200);
    expect((await stored(server(), "ada@example.com"))?.confirmedAt).not.toBeNull();
  });

  it("refuses the button's POST from another site", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const refused = await press(server(), tokenOf(confirmLinks(mail).text[0]!), { Origin: "https://evil.test" });
    expect(refused.status).toBe(403);
    expect((await stored(server(), "ada@example.com"))?.confirmedAt).toBeNull();
  });

  it("erases the confirmation when the address leaves; the old link then confirms nothing", async () => {
    const { mail } = await signUp(server(), "ada@example.com");
    const token = tokenOf(confirmLinks(mail).text[0]!);
    expect((await press(server(), token)).status).toBe(200);
    const leave = await request(`${server().url}/waitlist/leave`, {
      method: "POST",
      headers: { ...formType, Accept: "text/html", Origin: server().url },
      body: form({ token: tokenOf(leaveLinks(mail).text) }),
    });
    expect(leave.status).toBe(200);
    expect(await stored(server(), "ada@example.com")).toBeUndefined();
    const gone = await press(server(), token);
    expect(gone.status).toBe(410);
    expect(gone.body).toContain("This signup is no longer on the list");
    // Signed up again: a new signup, unconfirmed, whose own link is the one that confirms it.
    const { mail: second } = await signUp(server(), "ada@example.com");
    expect((await press(server(), token)).status).toBe(410);
    expect((await press(server(), tokenOf(confirmLinks(second).text[0]!))).status).toBe(200);
  });
  it("sends the e-mail again to an unconfirmed address that signs up again a day later, and only then", async () => {
    const first = await signUp(server(), "lost@example.com");
    const post = () =>
      request(`${server().url}/`, {
        method: "POST",
        headers: { ...formType, Accept: "text/plain" },
        body: signupBody("lost@example.com"),
      });
    // The same day: the same answer, and no second e-mail.
    expect((await post()).status).toBe(200);
    await server().outbox();
    // A day on (the first e-mail's time put back a day): the repeat gets a new e-mail, of its own Message-ID.
    await server().withStore((store) =>
      store.markConfirmationSent("lost@example.com", new Date(Date.now() - 86_400_000)),
    );
    expect((await post()).status).toBe(200);
    const second = (await smtp.waitFor(2))[1]!;
    expect(second.envelope.to).toEqual(["lost@example.com"]);
    expect(second.mail.subject).toBe("Confirm your spot on the Tandem waitlist");
    expect(second.mail.messageId).not.toBe(first.mail.messageId);
    // Right after it, and once confirmed (with the first e-mail's link: the same signup), no more.
    expect((await post()).status).toBe(200);
    expect((await press(server(), tokenOf(confirmLinks(first.mail).text[0]!))).status).toBe(200);
    await server().withStore((store) =>
      store.markConfirmationSent("lost@example.com", new Date(Date.now() - 2 * 86_400_000)),
    );
    expect((await post()).status).toBe(200);
    await server().outbox();
    expect(smtp.deliveries).toHaveLength(2);
    expect((await stored(server(), "lost@example.com"))?.confirmedAt).not.toBeNull();
  });
});

describe("a first run's confirm link (npm start without SITE_URL)", () => {
  it("leads back to the server that took the signup, which confirms it, and the start says where", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "first-run-"));
    writePublicDir(path.join(dir, "public"));
    const dbFile = path.join(dir, "data", "waitlist.db");
    // SITE_URL empty: not set, whatever the shell running the tests has.
    const env = { SITE_URL: "", PUBLIC_DIR: path.join(dir, "public"), WAITLIST_DB: dbFile, SMTP_URL: smtp.url };
    const server = await spawnServe(env);
    try {
      const own = `http://localhost:${new URL(server.url).port}`;
      const { mail } = await signUpForMail(server, smtp, "ada@example.com");
      const link = confirmLinks(mail).text[0]!;
      expect(new URL(link).origin).toBe(own);
      expect(new URL(leaveLinks(mail).text).origin).toBe(own);
      expect(server.output()).toContain(`Links in e-mails lead to ${own}: SITE_URL is not set.`);

      // The link as the e-mail has it, opened and pressed as a browser on this machine does.
      expect((await request(link, { headers: { Accept: "text/html" } })).status).toBe(200);
      const pressed = await request(`${own}/waitlist/confirm`, {
        method: "POST",
        headers: { ...formType, Accept: "text/html", Origin: own },
        body: form({ token: tokenOf(link) }),
      });
      expect(pressed.body).toContain("<h1>Your spot is confirmed.</h1>");
      const [signup] = await sqliteSignups(dbFile);
      expect(signup?.confirmedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    } finally {
      await server.stop();
      removeDir(dir);
    }
  });
});
