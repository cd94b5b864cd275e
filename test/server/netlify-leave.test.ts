import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { handler as submissionCreated } from "../../netlify/functions/submission-created";
import { handler as leave, type HttpEvent } from "../../netlify/functions/waitlist-leave";
import { leaveToken } from "../../waitlist/leave-token";
import { resultPagePolicy } from "../../waitlist/pages";
import { netlifySite, setUpNetlifyFunctions, type NetlifyApiStandIn, type StandInSubmission } from "./netlify-api";
import { leaveLinks, type TestSmtpServer } from "./smtp";

const root = path.resolve(__dirname, "../..");
const { siteId, token, formId, leaveSecret: secret } = netlifySite;
const authorization = `Bearer ${token}`;
const goodbye = "You're off the list. We won't e-mail you again.\n";

const submission = (id: string, email: string, minutesAgo = 0): StandInSubmission => ({
  id,
  form_id: formId,
  created_at: new Date(Date.parse("2026-11-01T12:00:00Z") - minutesAgo * 60_000).toISOString(),
  site_url: "https://jointandem.app",
  data: { "form-name": "waitlist", email, "bot-field": "" },
});

/** An HTTP event as Netlify hands it to the function behind netlify.toml's rewrite. */
function httpEvent(
  method: string,
  {
    query = "",
    body = null,
    headers = {},
    base64 = false,
  }: { query?: string; body?: string | null; headers?: Record<string, string>; base64?: boolean } = {},
): HttpEvent {
  return {
    httpMethod: method,
    headers: { "x-nf-client-connection-ip": "203.0.113.7", ...headers },
    rawQuery: query,
    body: body !== null && base64 ? Buffer.from(body).toString("base64") : body,
    isBase64Encoded: base64,
  };
}

const formHeaders = { "content-type": "application/x-www-form-urlencoded" };
const page = { ...formHeaders, accept: "text/html", origin: "https://jointandem.app" };

const functions = setUpNetlifyFunctions();
let api: NetlifyApiStandIn;
let smtp: TestSmtpServer;
beforeEach(() => {
  ({ api, smtp } = functions);
  api.submissions.push(
    submission("ada-2", "ADA@example.com", 1),
    submission("grace-1", "grace@example.com", 2),
    submission("ada-1", "ada@example.com", 3),
    { ...submission("contact-1", "ada@example.com", 4), form_id: "contact-form" },
  );
});

const remaining = () => api.submissions.map((stored) => stored.id);

describe("netlify.toml", () => {
  it("sends /waitlist/leave, with its query, to the waitlist-leave function", () => {
    const config = parse(readFileSync(path.join(root, "netlify.toml"), "utf8")) as {
      redirects?: { from: string; to: string; status: number; force: boolean }[];
      functions: { directory: string };
    };
    expect(config.redirects).toContainEqual({
      from: "/waitlist/leave",
      to: "/.netlify/functions/waitlist-leave",
      status: 200,
      force: true,
    });
    expect(existsSync(path.join(root, config.functions.directory, "waitlist-leave.ts"))).toBe(true);
  });
});

describe("netlify/functions/waitlist-leave", () => {
  it("follows the link from submission-created's e-mail: the page, then every submission of the address deleted", async () => {
    const event = JSON.parse(
      readFileSync(path.join(root, "test/fixtures/netlify/submission-created.json"), "utf8"),
    ) as {
      payload: { id: string; created_at: string; form_id: string };
    };
    event.payload.id = "ada-1";
    event.payload.form_id = formId;
    event.payload.created_at = api.submissions.find((stored) => stored.id === "ada-1")!.created_at;
    await expect(submissionCreated({ body: JSON.stringify(event) })).resolves.toEqual({
      statusCode: 200,
      body: "Confirmation sent.",
    });
    const { mail, raw } = (await smtp.waitFor(1))[0]!;
    const links = leaveLinks(mail);
    expect(links.text).toBe(`https://jointandem.app/waitlist/leave?token=${leaveToken("ada@example.com", secret)}`);
    expect([links.html, links.header]).toEqual([links.text, links.text]);
    expect(links.mailto).toBe("mailto:hello@jointandem.app?subject=unsubscribe");
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);

    const query = new URL(links.text).search.slice(1);
    api.calls.length = 0;
    const shown = await leave(httpEvent("GET", { query }));
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain("<h1>Remove ada@example.com from the waitlist?</h1>");
    expect(shown.body).toContain('<button type="submit">Leave the waitlist</button>');
    expect(shown.headers).toMatchObject({
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": resultPagePolicy,
      "Referrer-Policy": "strict-origin",
      "Cache-Control": "no-store",
      "X-Frame-Options": "DENY",
      "Strict-Transport-Security": expect.stringMatching(/^max-age=/),
    });
    // Showing the page changes nothing and asks Netlify nothing.
    expect(api.calls).toEqual([]);

    const pressed = await leave(
      httpEvent("POST", { body: `token=${leaveToken("ada@example.com", secret)}`, headers: page }),
    );
    expect(pressed.statusCode).toBe(200);
    expect(pressed.body).toContain("<h1>You&#39;re off the list.</h1>");
    expect(api.calls).toEqual([
      { method: "GET", url: `/api/v1/sites/${siteId}/forms`, authorization },
      { method: "GET", url: `/api/v1/forms/${formId}/submissions?page=1&per_page=100`, authorization },
      { method: "DELETE", url: "/api/v1/submissions/ada-2", authorization },
      { method: "DELETE", url: "/api/v1/submissions/ada-1", authorization },
    ]);
    for (const headers of api.headers) expect(headers["user-agent"]).toBe("tandem-waitlist");
    expect(remaining()).toEqual(["grace-1", "contact-1"]);
  });

  it.each([
    ["URL-encoded, as text", false],
    ["URL-encoded, base64 as Netlify may pass it", true],
  ])("answers a one-click POST (%s) with one line, and deletes across pages", async (_name, base64) => {
    for (let n = 0; n < 120; n++) api.submissions.push(submission(`other-${n}`, `someone${n}@example.com`, 10 + n));
    api.submissions.push(submission("grace-old", "Grace@Example.com", 500));
    const result = await leave(
      httpEvent("POST", {
        query: `token=${leaveToken("grace@example.com", secret)}`,
        body: "List-Unsubscribe=One-Click",
        headers: formHeaders,
        base64,
      }),
    );
    expect(result).toMatchObject({ statusCode: 200, body: goodbye });
    expect(result.headers["Content-Type"]).toBe("text/plain; charset=utf-8");
    expect(api.calls.map((call) => `${call.method} ${call.url}`)).toEqual([
      `GET /api/v1/sites/${siteId}/forms`,
      `GET /api/v1/forms/${formId}/submissions?page=1&per_page=100`,
      `GET /api/v1/forms/${formId}/submissions?page=2&per_page=100`,
      "DELETE /api/v1/submissions/grace-1",
      "DELETE /api/v1/submissions/grace-old",
    ]);
    expect(remaining()).not.toContain("grace-1");
    expect(remaining()).not.toContain("grace-old");
    expect(remaining()).toHaveLength(123);
  });

  it("answers a replay the same, deleting nothing more", async () => {
    const oneClick = httpEvent("POST", {
      query: `token=${leaveToken("ada@example.com", secret)}`,
      body: "List-Unsubscribe=One-Click",
      headers: formHeaders,
    });
    expect((await leave(oneClick)).body).toBe(goodbye);
    api.calls.length = 0;
    expect((await leave(oneClick)).body).toBe(goodbye);
    expect(api.calls.map((call) => call.method)).toEqual(["GET", "GET"]);
  });

  it.each([
    ["a tampered token", `${leaveToken("ada@example.com", secret).slice(0, -1)}x`],
    ["a token signed with another secret", leaveToken("ada@example.com", "another-secret-of-32-characters!!")],
    ["an empty token", ""],
  ])("refuses %s with 400 and asks Netlify nothing", async (_name, forged) => {
    const shown = await leave(httpEvent("GET", { query: `token=${encodeURIComponent(forged)}` }));
    expect(shown.statusCode).toBe(400);
    expect(shown.body).toContain("This leave link is not valid. Write to hello@jointandem.app");
    const clicked = await leave(
      httpEvent("POST", {
        query: `token=${encodeURIComponent(forged)}`,
        body: "List-Unsubscribe=One-Click",
        headers: formHeaders,
      }),
    );
    expect(clicked.statusCode).toBe(400);
    expect(api.calls).toEqual([]);
    expect(remaining()).toHaveLength(4);
  });

  it("refuses the page's POST from another site", async () => {
    const result = await leave(
      httpEvent("POST", {
        body: `token=${leaveToken("ada@example.com", secret)}`,
        headers: { ...page, origin: "https://evil.test" },
      }),
    );
    expect(result.statusCode).toBe(403);
    expect(api.calls).toEqual([]);
  });

  it.each([
    ["NETLIFY_API_TOKEN", "NETLIFY_API_TOKEN is not set"],
    ["SITE_ID", "SITE_ID (or NETLIFY_SITE_ID) is not set"],
    ["WAITLIST_SECRET", "WAITLIST_SECRET is not set"],
  ])("without %s, answers 503 with a line naming it and logs it, without crashing", async (variable, problem) => {
    delete process.env[variable];
    const result = await leave(
      httpEvent("POST", {
        query: `token=${leaveToken("ada@example.com", secret)}`,
        body: "List-Unsubscribe=One-Click",
        headers: formHeaders,
      }),
    );
    expect(result.statusCode).toBe(503);
    expect(result.body).toBe(
      `Leaving by link is not set up on this site yet (${problem}). Write to hello@jointandem.app and we will take your address off the list.\n`,
    );
    expect(console.error).toHaveBeenCalledWith(
      `waitlist-leave: ${problem}: set it in Netlify's environment variables, with the Functions scope. Leave links can't be checked.`,
    );
    const shown = await leave(httpEvent("GET", { query: `token=${leaveToken("ada@example.com", secret)}` }));
    expect(shown.statusCode).toBe(503);
    expect(shown.headers["Content-Type"]).toBe("text/html; charset=utf-8");
    expect(api.calls).toEqual([]);
    expect(remaining()).toHaveLength(4);
  });

  it("answers 500 when Netlify's API fails, logging neither the token nor the address", async () => {
    api.failWith = 500;
    const tokenOfAda = leaveToken("ada@example.com", secret);
    const result = await leave(httpEvent("POST", { body: `token=${tokenOfAda}`, headers: page }));
    expect(result.statusCode).toBe(500);
    expect(result.body).toContain("Your address could not be removed just now.");
    const logged = (console.error as jest.Mock).mock.calls.flat().join("\n");
    expect(logged).toMatch(/^waitlist-leave: waitlist: could not remove an address: /);
    expect(logged).not.toContain("ada@");
    expect(logged).not.toContain(tokenOfAda.split(".")[1]);
  });
});
