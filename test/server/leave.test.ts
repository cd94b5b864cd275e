import { legacyLeaveToken, leaveToken, verifyLeaveToken } from "../../waitlist/tokens";
import { resultPagePolicy } from "../../waitlist/endpoints/pages";
import {
  form,
  formType,
  removeDir,
  request,
  serverForEachTest,
  signUpForMail,
  startServer,
  type Adapter,
  type RequestOptions,
  type TestServer,
} from "../support/harness";
import { atServer, leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";

jest.setTimeout(patience(30_000));

const oneClick = "List-Unsubscribe=One-Click";
const notValid =
  "This leave link is not valid. Write to hello@jointandem.app and we will take your address off the list.";

let smtp: TestSmtpServer;
beforeEach(async () => {
  smtp = await startSmtpServer();
});
afterEach(() => smtp.close());

/** Signs an address up and returns the leave link of the confirmation it receives, pointed at the test server. */
async function signUpAndTakeLink(server: TestServer, email: string) {
  const delivery = await signUpForMail(server, smtp, email);
  const links = leaveLinks(delivery.mail);
  // Links point at SITE_URL; this deployment of it listens here.
  const local = (link: string) => atServer(server.url, link);
  return { text: local(links.text), html: local(links.html), header: local(links.header), delivery };
}

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

/** What `export` would list now, from the adapter's store. */
const listed = async (server: TestServer) => (await server.signups()).map((signup) => signup.email);

/** The page's button, as a browser sends it: the form's fields, from this site's page. */
const pressLeave = (server: TestServer, token: string, headers: Record<string, string> = {}) =>
  request(`${server.url}/waitlist/leave`, {
    method: "POST",
    headers: { ...formType, Accept: "text/html", Origin: server.url, ...headers },
    body: form({ token }),
  });

const postOneClick = (url: string, options: RequestOptions = {}) =>
  request(url, {
    method: "POST",
    ...options,
    headers: { ...formType, ...options.headers },
    body: options.body ?? oneClick,
  });

describe.each<Adapter>(["start", "develop", "netlify"])("the leave link through the %s adapter", (adapter) => {
  const server = serverForEachTest(adapter, () => ({ smtpUrl: smtp.url }));

  it("is the same personal link in the text, the HTML and the List-Unsubscribe header", async () => {
    const links = await signUpAndTakeLink(server(), "Ada@Example.com");
    expect(links.html).toBe(links.text);
    expect(links.header).toBe(links.text);
    expect(links.text).toMatch(/\/waitlist\/leave\?token=[\w-]{80,}$/);
  });

  it("GET shows a page naming the address masked, with the button, and changes nothing", async () => {
    const { text } = await signUpAndTakeLink(server(), "Ada@Example.com");
    // Mail scanners follow links, some more than once.
    for (let visit = 0; visit < 3; visit++) {
      const page = await request(text);
      expect(page.status).toBe(200);
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
      // Masked, as on the confirm page: a title and a heading reach tabs, history and scanners' reports.
      expect(page.body).toContain("<title>Remove A***@example.com from the waitlist? | Tandem</title>");
      expect(page.body).toContain("<h1>Remove A***@example.com from the waitlist?</h1>");
      expect(page.body).not.toContain("Ada@example.com");
      expect(page.body).toContain('<form method="post" action="/waitlist/leave">');
      expect(page.body).toContain(`<input type="hidden" name="token" value="${tokenOf(text)}">`);
      expect(page.body).toContain('<button type="submit">Leave the waitlist</button>');
      expect(page.body).toContain('<a href="/">Back to Tandem</a>');
      expect(page.body).not.toMatch(/<script/i);
      expect(page.headers["content-security-policy"]).toBe(resultPagePolicy);
      expect(page.headers["referrer-policy"]).toBe("strict-origin");
      expect(page.headers["cache-control"]).toBe("no-store");
      expect(page.headers["x-robots-tag"]).toBe("noindex");
    }
    expect(await listed(server())).toEqual(["Ada@example.com"]);
    const head = await request(text, { method: "HEAD" });
    expect([head.status, head.body]).toEqual([200, ""]);
  });

  it("the page's button removes the address: count drops, export no longer lists it; a second press says so", async () => {
    const { text } = await signUpAndTakeLink(server(), "ada@example.com");
    await signUpAndTakeLink(server(), "grace@example.com");
    expect(await listed(server())).toHaveLength(2);
    const page = await pressLeave(server(), tokenOf(text));
    expect(page.status).toBe(200);
    expect(page.body).toContain("<h1>You&#39;re off the list.</h1>");
    expect(page.body).toContain("<p>We won&#39;t e-mail you again.</p>");
    expect(page.headers["content-security-policy"]).toBe(resultPagePolicy);
    // Pressed again, it says what it did: nothing, as the address had left.
    const again = await pressLeave(server(), tokenOf(text));
    expect(again.status).toBe(200);
    expect(again.body).toContain("<h1>You&#39;re not on the list.</h1>");
    expect(await listed(server())).toEqual(["grace@example.com"]);
  });

  it("removes the address's signup of now with the leave link of an earlier e-mail, and says so (issue 43)", async () => {
    // Sign up, leave, sign up again: the first e-mail's link still takes the address off the list.
    const first = await signUpAndTakeLink(server(), "ada@example.com");
    expect((await postOneClick(first.header)).status).toBe(200);
    await signUpAndTakeLink(server(), "ada@example.com");
    expect(await listed(server())).toEqual(["ada@example.com"]);
    const page = await pressLeave(server(), tokenOf(first.text));
    expect(page.body).toContain("<h1>You&#39;re off the list.</h1>");
    expect(await listed(server())).toEqual([]);
    // A mail client's unsubscribe button on the old message does the same (RFC 8058).
    await signUpAndTakeLink(server(), "ada@example.com");
    expect(await postOneClick(first.header)).toMatchObject({
      status: 200,
      body: "You're off the list. We won't e-mail you again.\n",
    });
    expect(await listed(server())).toEqual([]);
  });

  it("a one-click POST to the header's URL (RFC 8058) removes another address and answers one line", async () => {
    await signUpAndTakeLink(server(), "ada@example.com");
    const grace = await signUpAndTakeLink(server(), "grace@example.com");
    // A mail provider's server: no Origin, no Sec-Fetch-Site, no Accept.
    const reply = await postOneClick(grace.header);
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(reply.body).toBe("You're off the list. We won't e-mail you again.\n");
    expect(await listed(server())).toEqual(["ada@example.com"]);
    // Replayed by the provider: 200 again, saying there was nothing left to remove.
    expect(await postOneClick(grace.header)).toMatchObject({
      status: 200,
      body: "This address is not on the waitlist, so there was nothing to remove. We won't e-mail you.\n",
    });
  });

  it("takes the one-click POST as multipart/form-data too, as RFC 8058 prefers", async () => {
    const { header } = await signUpAndTakeLink(server(), "katherine@example.com");
    const boundary = "----leave0123";
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const reply = await postOneClick(header, {
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect([reply.status, reply.body]).toEqual([200, "You're off the list. We won't e-mail you again.\n"]);
    expect(await listed(server())).toEqual([]);
  });

  it.each<[string, (token: string) => string]>([
    ["a tampered token", (token) => `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`],
    [
      "a token made with another secret",
      () => leaveToken("ada@example.com", new Date().toISOString(), "another-secret-of-32-characters!!"),
    ],
    ["an empty token", () => ""],
    [
      "an old-style token with another address under the same signature",
      () => `${legacyLeaveToken("grace@example.com", "x".repeat(32)).split(".")[0]}.${"A".repeat(43)}`,
    ],
  ])("refuses %s with 400 on every route, and removes nothing", async (_name, forge) => {
    const { text } = await signUpAndTakeLink(server(), "ada@example.com");
    const forged = encodeURIComponent(forge(tokenOf(text)));
    const page = await request(`${server().url}/waitlist/leave?token=${forged}`);
    expect(page.status).toBe(400);
    expect(page.body).toContain("<h1>This link is not valid</h1>");
    expect(page.body).toContain(`<p>${notValid}</p>`);
    const pressed = await pressLeave(server(), decodeURIComponent(forged));
    expect(pressed.status).toBe(400);
    const clicked = await postOneClick(`${server().url}/waitlist/leave?token=${forged}`);
    expect([clicked.status, clicked.body]).toEqual([400, `${notValid}\n`]);
    expect(await listed(server())).toEqual(["ada@example.com"]);
  });

  it.each([
    ["no token at all", "/waitlist/leave"],
    ["two tokens", "/waitlist/leave?token=a.b&token=c.d"],
    ["a broken escape", "/waitlist/leave?token=%FF"],
  ])("refuses %s with 400", async (_name, path) => {
    const page = await request(`${server().url}${path}`);
    expect(page.status).toBe(400);
    expect(page.body).toContain(notValid);
  });

  it("answers a valid token for an address no longer listed like a fresh one: the page, then the same goodbye", async () => {
    const { text } = await signUpAndTakeLink(server(), "ada@example.com");
    await signUpAndTakeLink(server(), "grace@example.com");
    expect((await pressLeave(server(), tokenOf(text))).status).toBe(200);
    expect((await request(text)).status).toBe(200);
    expect((await pressLeave(server(), tokenOf(text))).status).toBe(200);
    expect(await listed(server())).toEqual(["grace@example.com"]);
  });

  it("refuses the page's POST from another site, but not a mail provider's one-click POST", async () => {
    const { text } = await signUpAndTakeLink(server(), "ada@example.com");
    const token = tokenOf(text);
    const forged = await pressLeave(server(), token, { Origin: "https://evil.test", "Sec-Fetch-Site": "cross-site" });
    expect(forged.status).toBe(403);
    expect(forged.body).toContain("Leave requests are accepted from this site only.");
    expect(await listed(server())).toEqual(["ada@example.com"]);
    // The token alone decides a one-click POST: the provider's own servers send it, whatever they add.
    const reply = await postOneClick(text, {
      headers: { Origin: "https://mail.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(reply.status).toBe(200);
    expect(await listed(server())).toEqual([]);
  });

  it("takes forms only, as the signup endpoint does", async () => {
    const { text } = await signUpAndTakeLink(server(), "ada@example.com");
    const asText = await request(text, { method: "POST", headers: { "Content-Type": "text/plain" }, body: oneClick });
    // A mail provider asked for no page: the refusal is one line it can log.
    expect([asText.status, asText.headers["content-type"]]).toEqual([415, "text/plain; charset=utf-8"]);
    expect(asText.body).toBe("Send the form as application/x-www-form-urlencoded or multipart/form-data.\n");
    const compressed = await postOneClick(text, { headers: { "Content-Encoding": "gzip" } });
    expect(compressed.status).toBe(415);
    const large = await postOneClick(text, { body: `${oneClick}&pad=${"x".repeat(5000)}` });
    expect(large.status).toBe(413);
    const put = await request(text, { method: "PUT", headers: formType, body: oneClick });
    expect([put.status, put.headers.allow]).toEqual([405, "GET, HEAD, POST"]);
    expect(await listed(server())).toEqual(["ada@example.com"]);
  });

  it("lets a person who left join again: a fresh signup with a new confirmation", async () => {
    const first = await signUpAndTakeLink(server(), "ada@example.com");
    expect((await postOneClick(first.header)).status).toBe(200);
    const again = await signUpAndTakeLink(server(), "ada@example.com");
    expect(smtp.deliveries).toHaveLength(2);
    expect(again.delivery.mail.messageId).not.toBe(first.delivery.mail.messageId);
    expect(await listed(server())).toEqual(["ada@example.com"]);
    expect((await postOneClick(again.header)).status).toBe(200);
    expect(await listed(server())).toEqual([]);
  });

  it("never writes a token or an address to the request log", async () => {
    const { text, header } = await signUpAndTakeLink(server(), "secret.person@example.com");
    await request(text);
    await pressLeave(server(), tokenOf(text));
    await postOneClick(header);
    await request(`${text}x`);
    const log = server().logs.join("\n");
    // Netlify logs each call itself; the function adds a line per refusal.
    if (adapter !== "netlify") expect(log).toMatch(/GET \/waitlist\/leave 200/);
    expect(log).toMatch(/GET \/waitlist\/leave 400 .*- This leave link is not valid/);
    expect(log).not.toContain(tokenOf(text).slice(0, 16));
    expect(log).not.toContain(tokenOf(text).slice(-16));
    expect(log).not.toMatch(/secret\.person/i);
  });
});

describe("the leave link's secret", () => {
  it("is made on first start and kept in the store: links work after a restart", async () => {
    const first = await startServer("start", { smtpUrl: smtp.url });
    const { text } = await signUpAndTakeLink(first, "ada@example.com");
    await first.close();
    const second = await startServer("start", { smtpUrl: smtp.url, dir: first.dir });
    try {
      expect((await request(atServer(second.url, text))).status).toBe(200);
    } finally {
      await second.close();
      removeDir(first.dir);
    }
  });

  it("is WAITLIST_SECRET when set; rotating it makes the old links invalid", async () => {
    const secret = "the-founders-secret-for-leave-links";
    const first = await startServer("start", { smtpUrl: smtp.url, linkSecret: secret });
    const { text } = await signUpAndTakeLink(first, "ada@example.com");
    expect(verifyLeaveToken(tokenOf(text), secret)?.email).toBe("ada@example.com");
    await first.close();
    const rotated = await startServer("start", { smtpUrl: smtp.url, dir: first.dir, linkSecret: `${secret}-2026` });
    try {
      expect((await request(atServer(rotated.url, text))).status).toBe(400);
      expect((await rotated.rows()).map((row) => row.email)).toEqual(["ada@example.com"]);
    } finally {
      await rotated.close();
      removeDir(first.dir);
    }
  });
});

describe("the leave link's rate limit", () => {
  it("counts requests per IP: the sixth in a minute is refused, another address is not", async () => {
    const server = await startServer("start", { smtpUrl: smtp.url, linkRateLimitPerMinute: 5 });
    try {
      const statuses: number[] = [];
      for (let n = 0; n < 6; n++) statuses.push((await request(`${server.url}/waitlist/leave?token=x`)).status);
      expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
      const limited = await request(`${server.url}/waitlist/leave?token=x`);
      expect(limited.headers["retry-after"]).toMatch(/^\d+$/);
      expect(limited.body).toMatch(/Too many requests from your network; try again in \d+ seconds\./);
      const other = await request(`${server.url}/waitlist/leave?token=x`, { localAddress: "127.0.0.2" });
      expect(other.status).toBe(400);
    } finally {
      await server.close();
      removeDir(server.dir);
    }
  });
});
