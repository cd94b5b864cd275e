import escapeHtml from "escape-html";
import { invitePagePolicy } from "../../waitlist/endpoints/pages";
import { testSite } from "../support/site-settings";
import { form, formType, request, serverForEachTest, signupBody, type Adapter } from "../support/harness";
import { atServer, confirmLinks, leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";

/*
 * Invites (waitlist/invites.ts) over real HTTP and SMTP, on npm start and Netlify's functions: the inviter's page,
 * the invitee's signup by the invite link's page, and the cheats a referral loop has to withstand, each refused.
 */

jest.setTimeout(patience(30_000));

let smtp: TestSmtpServer;
beforeEach(async () => {
  smtp = await startSmtpServer();
});
afterEach(() => smtp.close());

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;
const codeOf = (page: string) => /\/\?invite=([A-Za-z0-9_-]{12})"/.exec(page)?.[1];
const countOf = (page: string) => /<p class="count">([^<]*)<\/p>/.exec(page)?.[1];

describe.each<Adapter>(["start", "netlify"])("invites through the %s adapter", (adapter) => {
  const server = serverForEachTest(adapter, () => ({ smtpUrl: smtp.url }));

  /** Signs `email` up from `page` (its Referer, as a browser sends it), and takes the confirm link of its mail. */
  async function signUp(email: string, page = "/") {
    const before = smtp.deliveries.length;
    const headers = { ...formType, Accept: "text/plain", Referer: `${server().url}${page}` };
    const reply = await request(`${server().url}/`, { method: "POST", headers, body: signupBody(email) });
    expect(reply.status).toBe(200);
    const mail = (await smtp.waitFor(before + 1)).find((one) => one.envelope.to.includes(email))!.mail;
    return {
      confirm: atServer(server().url, confirmLinks(mail).text),
      leave: atServer(server().url, leaveLinks(mail).text),
    };
  }
  const press = (link: string) =>
    request(`${server().url}/waitlist/confirm`, {
      method: "POST",
      headers: { ...formType, Accept: "text/html", Origin: server().url },
      body: form({ token: tokenOf(link) }),
    });
  const open = async (link: string) => (await request(link, { headers: { Accept: "text/html" } })).body;
  const invitedBy = async (email: string) => (await server().signups()).find((row) => row.email === email)?.invitedBy;

  it("shows a confirmed creator their invite link, with how many joined through it, and an unconfirmed one none", async () => {
    const ada = await signUp("ada@example.com");
    // Not confirmed yet: no invite link.
    expect(codeOf(await open(ada.confirm))).toBeUndefined();
    const confirmed = await press(ada.confirm);
    expect(confirmed.status).toBe(200);
    const code = codeOf(confirmed.body)!;
    expect(confirmed.body).toContain(`value="${escapeHtml(`${testSite.siteUrl}/?invite=${code}`)}" readonly`);
    expect(confirmed.body).toContain('<label for="invite-link">Your invite link</label>');
    expect(countOf(confirmed.body)).toBe(
      "Nobody has joined through it yet: each creator who does and confirms counts here.",
    );
    // Its one script, the copy and share buttons, by its hash: nothing else runs.
    expect(confirmed.headers["content-security-policy"]).toBe(invitePagePolicy);
    // Opened again later, the same link and the count of now.
    const bob = await signUp("bob@example.com", `/?invite=${code}`);
    await press(bob.confirm);
    const again = await open(ada.confirm);
    expect(codeOf(again)).toBe(code);
    expect(countOf(again)).toBe("1 creator has joined through your link and confirmed.");
    // A count, never who.
    expect(again).not.toMatch(/bob/i);
    expect(await invitedBy("bob@example.com")).toBe(code);
    // The code says nothing of the address in any encoding.
    for (const form of ["ada", "ada@example.com", Buffer.from("ada@example.com").toString("base64url")]) {
      expect(code.toLowerCase()).not.toContain(form.toLowerCase().slice(0, 6));
    }
  });

  it("credits only confirmed invitees, once per mailbox, never the inviter's own, and none who left", async () => {
    const ada = await signUp("ada@gmail.com");
    const code = codeOf((await press(ada.confirm)).body)!;
    const page = `/?utm_source=tiktok&invite=${code}`;
    const bob = await signUp("bob@example.com", page);
    // Not confirmed: no credit.
    expect(countOf(await open(ada.confirm))).toMatch(/^Nobody/);
    await press(bob.confirm);
    // The same mailbox under other spellings (+tags, Gmail's dots, case): the inviter's own and the invitee's.
    const spellings = [];
    for (const email of ["a.da+2@gmail.com", "ADA@googlemail.com", "bob+again@example.com"]) {
      const links = await signUp(email, page);
      await press(links.confirm);
      spellings.push(links);
    }
    expect(countOf(await open(ada.confirm))).toBe("1 creator has joined through your link and confirmed.");
    // Bob leaves, under both his spellings: no longer counted.
    const oneClick = (leave: string) =>
      request(leave, { method: "POST", headers: formType, body: "List-Unsubscribe=One-Click" });
    await oneClick(bob.leave);
    expect(countOf(await open(ada.confirm))).toBe("1 creator has joined through your link and confirmed.");
    await oneClick(spellings[2]!.leave);
    expect(countOf(await open(ada.confirm))).toMatch(/^Nobody/);
  });

  it.each([
    ["an unknown code", "/?invite=NoSuchCode12"],
    ["a malformed code", "/?invite=%3Cscript%3Ealert(1)%3C%2Fscript%3E"],
    ["two codes", "/?invite=AAAAAAAAAAAA&invite=BBBBBBBBBBBB"],
    ["a code too long", `/?invite=${"A".repeat(500)}`],
  ])("stores a signup by %s without it, never an error", async (_name, page) => {
    await signUp("dora@example.com", page);
    expect(await invitedBy("dora@example.com")).toBeNull();
  });

  it("shows no invite link on a bad or spent token's page", async () => {
    const ada = await signUp("ada@example.com");
    await press(ada.confirm);
    const forged = `${server().url}/waitlist/confirm?token=${tokenOf(ada.confirm).slice(0, -2)}xx`;
    expect(codeOf(await open(forged))).toBeUndefined();
    await request(ada.leave, { method: "POST", headers: formType, body: "List-Unsubscribe=One-Click" });
    expect(codeOf(await open(ada.confirm))).toBeUndefined();
    expect(codeOf((await press(ada.confirm)).body)).toBeUndefined();
  });
});
