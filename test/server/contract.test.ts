import { formType, request, signupBody, serverForEachTest, form, type Adapter } from "../support/harness";
import { patience } from "../support/patience";

// The Netlify adapter sends each new signup's confirmation through its SMTP server before it closes.
jest.setTimeout(patience(30_000));

const fetchHeaders = { ...formType, Accept: "text/plain" };
const success = "Welcome to the waitlist! Check your email for a confirmation message.\n";

/** Everything of a reply that must not reveal whether an address was new. */
function observable(reply: { status: number; headers: Record<string, unknown>; body: string }) {
  const { date: _date, ...headers } = reply.headers;
  return { status: reply.status, headers, body: reply.body };
}

const badInputs: [string, Parameters<typeof request>[1], number, RegExp][] = [
  ["an empty e-mail", { body: signupBody("") }, 422, /Enter an e-mail address/],
  ["spaces only", { body: signupBody("    ") }, 422, /Enter an e-mail address/],
  ["no e-mail field", { body: form({ "form-name": "waitlist" }) }, 422, /Enter an e-mail address/],
  ["no @", { body: signupBody("ada.example.com") }, 422, /needs a name, an @ and a domain/],
  ["nothing before the @", { body: signupBody("@example.com") }, 422, /needs a name, an @ and a domain/],
  ["nothing after the @", { body: signupBody("ada@") }, 422, /needs a name, an @ and a domain/],
  ["two @", { body: signupBody("ada@lovelace@example.com") }, 422, /not a valid e-mail address/],
  ["no top-level domain", { body: signupBody("ada@localhost") }, 422, /not a valid e-mail address/],
  ["a one-letter top-level domain", { body: signupBody("ada@example.c") }, 422, /not a valid e-mail address/],
  ["a space inside", { body: signupBody("ada lovelace@example.com") }, 422, /contains a space/],
  ["a double dot in the domain", { body: signupBody("ada@example..com") }, 422, /not a valid e-mail address/],
  ["a leading hyphen in the domain", { body: signupBody("ada@-example.com") }, 422, /not a valid e-mail address/],
  ["an underscore in the domain", { body: signupBody("ada@exa_mple.com") }, 422, /not a valid e-mail address/],
  [
    "a stray quote",
    { body: signupBody('ada"@example.com') },
    422,
    /Addresses with quotation marks are not accepted; write the address without them\./,
  ],
  [
    "unbalanced quotes",
    { body: signupBody('"ada@example.com') },
    422,
    /Addresses with quotation marks are not accepted; write the address without them\./,
  ],
  ["a comma", { body: signupBody("ada,byron@example.com") }, 422, /not a valid e-mail address/],
  ["angle brackets", { body: signupBody("Ada <ada@example.com>") }, 422, /contains a space/],
  [
    "angle brackets alone",
    { body: signupBody("Ada<ada@example.com>") },
    422,
    /domain of the e-mail address is not valid/,
  ],
  ["an IP-literal domain", { body: signupBody("ada@[127.0.0.1]") }, 422, /domain of the e-mail address is not valid/],
  [
    "a 255-character address",
    { body: signupBody(`${"a".repeat(60)}@${"b".repeat(190)}.com`) },
    422,
    /longer than 254 characters/,
  ],
  [
    "a 65-character local part",
    { body: signupBody(`${"a".repeat(65)}@example.com`) },
    422,
    /longer than 64 characters/,
  ],
  [
    "a CR/LF header injection",
    { body: signupBody("ada@example.com\r\nBcc: eve@example.com") },
    422,
    /control character/,
  ],
  ["a bare LF", { body: signupBody("ada@exam\nple.com") }, 422, /control character/],
  ["a NUL byte", { body: signupBody("ada\u0000@example.com") }, 422, /control character/],
  ["a tab", { body: signupBody("ada\t@example.com") }, 422, /control character/],
  ["DEL", { body: signupBody("ada\u007f@example.com") }, 422, /control character/],
  [
    "two e-mail fields",
    { body: "form-name=waitlist&email=a%40example.com&email=b%40example.com" },
    400,
    /one e-mail address/,
  ],
  [
    "invalid UTF-8",
    { body: Buffer.from([...Buffer.from("form-name=waitlist&email="), 0xff, 0xfe]) },
    400,
    /not valid UTF-8/,
  ],
  ["a wrong form-name", { body: form({ "form-name": "contact", email: "ada@example.com" }) }, 404, /no such form/],
  ["no form-name", { body: form({ email: "ada@example.com" }) }, 404, /no such form/],
  ["two form-names", { body: "form-name=waitlist&form-name=waitlist&email=ada%40example.com" }, 404, /no such form/],
  [
    "a JSON body",
    { headers: { "Content-Type": "application/json" }, body: '{"form-name":"waitlist","email":"ada@example.com"}' },
    415,
    /x-www-form-urlencoded/,
  ],
  [
    "a multipart body",
    {
      headers: { "Content-Type": "multipart/form-data; boundary=x" },
      body: '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nada@example.com\r\n--x--\r\n',
    },
    415,
    /x-www-form-urlencoded/,
  ],
  [
    "a plain-text body",
    { headers: { "Content-Type": "text/plain" }, body: signupBody("ada@example.com") },
    415,
    /x-www-form-urlencoded/,
  ],
  ["no content type", { headers: {}, body: signupBody("ada@example.com") }, 415, /x-www-form-urlencoded/],
  [
    "a Latin-1 charset",
    {
      headers: { "Content-Type": "application/x-www-form-urlencoded; charset=iso-8859-1" },
      body: signupBody("ada@example.com"),
    },
    415,
    /UTF-8/,
  ],
  [
    "a 5 KiB body",
    { body: signupBody("ada@example.com", { padding: "x".repeat(5 * 1024) }) },
    413,
    /larger than 4096 bytes/,
  ],
  ["a semicolon", { body: signupBody("ada;byron@example.com") }, 422, /not a valid e-mail address/],
  ["PUT", { method: "PUT", body: signupBody("ada@example.com") }, 405, /Only POST/],
  ["DELETE", { method: "DELETE" }, 405, /Only POST/],
  ["PATCH", { method: "PATCH", body: signupBody("ada@example.com") }, 405, /Only POST/],
  ["OPTIONS", { method: "OPTIONS" }, 405, /Only POST/],
  [
    "a cross-site fetch",
    { headers: { ...fetchHeaders, "Sec-Fetch-Site": "cross-site" }, body: signupBody("ada@example.com") },
    403,
    /from this site only/,
  ],
  [
    "a foreign Origin",
    { headers: { ...fetchHeaders, Origin: "https://evil.example" }, body: signupBody("ada@example.com") },
    403,
    /from this site only/,
  ],
  [
    "an opaque Origin",
    { headers: { ...fetchHeaders, Origin: "null" }, body: signupBody("ada@example.com") },
    403,
    /from this site only/,
  ],
];

describe.each<Adapter>(["start", "develop", "netlify"])("the signup endpoint through the %s adapter", (adapter) => {
  const server = serverForEachTest(adapter);

  const post = (body: string | Buffer, headers: Record<string, string> = fetchHeaders) =>
    request(`${server().url}/`, { method: "POST", headers, body });

  it("stores a new signup and answers 200 with a short text", async () => {
    const reply = await post(signupBody("  Ada.Lovelace@Example.COM "));
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(reply.headers["cache-control"]).toBe("no-store");
    expect(reply.body).toBe(success);
    expect(await server().rows()).toEqual([
      {
        // One canonical form: the domain as IDNA maps it, the part before the @ as typed.
        email: "Ada.Lovelace@example.com",
        email_key: "ada.lovelace@example.com",
        source: adapter,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);
  });

  it("converts an international domain to ASCII for the key and keeps it in Unicode in the address", async () => {
    expect((await post(signupBody("ada@bücher.de"))).status).toBe(200);
    expect((await post(signupBody("ADA@xn--bcher-kva.de"))).status).toBe(200);
    expect((await server().rows()).map((row) => [row.email, row.email_key])).toEqual([
      ["ada@bücher.de", "ada@xn--bcher-kva.de"],
    ]);
  });

  it("answers a repeat address byte for byte like a new one and stores nothing new", async () => {
    const first = await post(signupBody("ada@example.com"));
    const again = await post(signupBody("ada@example.com"));
    expect(observable(again)).toEqual(observable(first));
    expect(await server().rows()).toHaveLength(1);
  });

  it("stores one row for 100 case and whitespace variants, with identical replies", async () => {
    const variants = Array.from({ length: 100 }, (_, i) => {
      const cased = [..."grace.hopper@navy.example"]
        .map((char, j) => ((i >> (j % 7)) & 1 ? char.toUpperCase() : char))
        .join("");
      return `${" ".repeat(i % 4)}${cased}${"\t ".slice(0, i % 3)}`;
    });
    expect(new Set(variants).size).toBe(100);
    const replies = [];
    for (const variant of variants) replies.push(observable(await post(signupBody(variant))));
    expect(new Set(replies.map((reply) => JSON.stringify(reply))).size).toBe(1);
    expect(replies[0]!.status).toBe(200);
    expect((await server().rows()).map((row) => row.email_key)).toEqual(["grace.hopper@navy.example"]);
  });

  it("answers a filled honeypot exactly like a success and stores nothing", async () => {
    const bot = await post(signupBody("bot@example.com", { "bot-field": "http://spam.example" }));
    const person = await post(signupBody("person@example.com"));
    expect(observable(bot)).toEqual(observable(person));
    expect((await server().rows()).map((row) => row.email)).toEqual(["person@example.com"]);
  });

  it("accepts a POST whose Origin is the site itself", async () => {
    const origin = server().url;
    const reply = await post(signupBody("ada@example.com"), {
      ...fetchHeaders,
      Origin: origin,
      "Sec-Fetch-Site": "same-origin",
    });
    expect(reply.status).toBe(200);
  });

  // On Netlify only the form's POST reaches the function; Netlify answers other methods itself.
  const inputs = adapter === "netlify" ? badInputs.filter(([, options]) => !options?.method) : badInputs;
  it.each(inputs)("refuses %s with a reason and writes nothing", async (_name, options, status, reason) => {
    const headers = options?.headers ? { Accept: "text/plain", ...options.headers } : fetchHeaders;
    const reply = await request(`${server().url}/`, { method: "POST", ...options, headers });
    expect(reply.status).toBe(status);
    expect(reply.body).toMatch(reason);
    expect(reply.body.trim().split("\n")).toHaveLength(1);
    expect(await server().rows()).toEqual([]);
    if (status === 405) expect(reply.headers.allow).toBe("GET, HEAD, POST");
  });

  it("answers a native form post (Accept: text/html) with a page linking home", async () => {
    const headers = { ...formType, Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
    const ok = await post(signupBody("ada@example.com"), headers);
    expect(ok.status).toBe(200);
    expect(ok.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(ok.body).toMatch(/<h1>You&#39;re on the list!<\/h1>/);
    expect(ok.body).toContain('<a href="/">');
    const bad = await post(signupBody("ada"), headers);
    expect(bad.status).toBe(422);
    expect(bad.body).toMatch(/needs a name, an @ and a domain/);
    expect(bad.body).toContain('<a href="/">');
  });

  it("keeps the full address out of the log: a line per request, or on Netlify (which logs each call) per refusal", async () => {
    await post(signupBody("secret.person@example.com"));
    await post(signupBody("secret.person"));
    const lines = server().logs.join("").trim().split("\n");
    expect(lines).toEqual(
      adapter === "netlify"
        ? ["waitlist-signup: POST / 422 - The e-mail address needs a name, an @ and a domain."]
        : [
            expect.stringMatching(/^\S+Z POST \/ 200 \d+\.\dms$/),
            expect.stringMatching(
              /^\S+Z POST \/ 422 \d+\.\dms - The e-mail address needs a name, an @ and a domain\.$/,
            ),
          ],
    );
    expect(server().logs.join("")).not.toContain("secret.person");
  });

  it("stores all of 200 concurrent distinct signups", async () => {
    const emails = Array.from({ length: 200 }, (_, i) => `creator${i}@example.com`);
    const replies = await Promise.all(emails.map((email) => post(signupBody(email))));
    expect(replies.map((reply) => reply.status)).toEqual(emails.map(() => 200));
    expect((await server().rows()).map((row) => row.email).sort()).toEqual([...emails].sort());
  });
});

describe.each<Adapter>(["start", "develop", "netlify"])("rate limiting through the %s adapter", (adapter) => {
  const server = serverForEachTest(adapter, () => ({ rateLimitPerMinute: 5 }));

  it("allows 5 signups a minute per IP, then answers 429 with Retry-After; another IP is unaffected", async () => {
    const post = (email: string, localAddress = "127.0.0.1") =>
      request(`${server().url}/`, { method: "POST", headers: fetchHeaders, body: signupBody(email), localAddress });
    for (let i = 0; i < 5; i++) expect((await post(`a${i}@example.com`)).status).toBe(200);
    const limited = await post("a5@example.com");
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body).toMatch(new RegExp(`try again in ${retryAfter} seconds`));
    expect((await post("b0@example.com", "127.0.0.2")).status).toBe(200);
    expect((await server().rows()).map((row) => row.email)).toEqual([
      "a0@example.com",
      "a1@example.com",
      "a2@example.com",
      "a3@example.com",
      "a4@example.com",
      "b0@example.com",
    ]);
  });
});
