import { readFileSync } from "node:fs";
import path from "node:path";
import { handler } from "../../netlify/functions/submission-created";
import { netlifySite, setUpNetlifyFunctions, type NetlifyApiStandIn, type StandInSubmission } from "./netlify-api";
import { closedPort, type TestSmtpServer } from "./smtp";

type Payload = { id: string; form_id: string; site_url: string; form_name: string; data: Record<string, string> };
const sample = JSON.parse(
  readFileSync(path.resolve(__dirname, "../fixtures/netlify/submission-created.json"), "utf8"),
) as { payload: Payload & { created_at: string } };

const { siteId, token, formId: waitlistFormId } = netlifySite;

function event(change: (payload: Payload) => void = () => {}) {
  const copy = structuredClone(sample);
  change(copy.payload);
  return { body: JSON.stringify(copy) };
}

/** The submission the sample event names, as Netlify stores it. */
const stored = (): StandInSubmission => ({
  id: sample.payload.id,
  form_id: waitlistFormId,
  created_at: sample.payload.created_at,
  site_url: sample.payload.site_url,
  data: { ...sample.payload.data },
});

/** Another submission of the waitlist form, older than the sample's by `minutes`. */
const older = (n: number, email: string, minutes = n + 1): StandInSubmission => ({
  id: `older-${n}`,
  form_id: waitlistFormId,
  created_at: new Date(Date.parse(sample.payload.created_at) - minutes * 60_000).toISOString(),
  site_url: sample.payload.site_url,
  data: { "form-name": "waitlist", email, "bot-field": "" },
});

const functions = setUpNetlifyFunctions();
let smtp: TestSmtpServer;
let api: NetlifyApiStandIn;
beforeEach(() => {
  ({ smtp, api } = functions);
  api.submissions.push(stored());
});

/** The stand-in records a message before it answers 250, so whatever the function sent is here once it answers. */
const noMail = () => expect(smtp.deliveries).toHaveLength(0);

describe("netlify/functions/submission-created", () => {
  it("confirms a submission of this site's waitlist form through Netlify's API, then sends one confirmation", async () => {
    await expect(handler(event())).resolves.toEqual({ statusCode: 200, body: "Confirmation sent." });
    expect(smtp.deliveries).toHaveLength(1);
    expect(smtp.deliveries[0]!.envelope.to).toEqual(["ada@example.com"]);
    expect(smtp.deliveries[0]!.mail.subject).toBe("You're on the Tandem waitlist");
    expect(smtp.deliveries[0]!.mail.messageId).toMatch(/^<confirmation\.[0-9a-f]{32}@jointandem\.app>$/);
    expect(api.calls).toEqual([
      { method: "GET", url: `/api/v1/sites/${siteId}/forms`, authorization: `Bearer ${token}` },
      { method: "GET", url: `/api/v1/submissions/${sample.payload.id}`, authorization: `Bearer ${token}` },
      {
        method: "GET",
        url: `/api/v1/forms/${waitlistFormId}/submissions?page=1&per_page=100`,
        authorization: `Bearer ${token}`,
      },
    ]);
  });

  it("ignores submissions of other forms without calling anyone", async () => {
    const result = await handler(
      event((payload) => {
        payload.form_name = "contact";
        payload.data["form-name"] = "contact";
      }),
    );
    expect(result).toEqual({ statusCode: 200, body: 'Ignored: a submission of form "contact".' });
    expect(api.calls).toEqual([]);
    noMail();
  });

  it.each<[string, (payload: Payload) => void, (submissions: StandInSubmission[]) => void]>([
    ["an id Netlify does not have", (payload) => (payload.id = "forged-id"), () => {}],
    [
      "another address than the stored submission's",
      (payload) => (payload.data.email = "victim@example.com"),
      () => {},
    ],
    ["a submission of another form", () => {}, (submissions) => (submissions[0]!.form_id = "contact-form")],
  ])("refuses a forged event (%s) and mails nobody", async (_name, changeEvent, changeStore) => {
    changeStore(api.submissions);
    const result = await handler(event(changeEvent));
    expect(result).toEqual({
      statusCode: 403,
      body: "No such submission in this site's waitlist form; no confirmation sent.",
    });
    noMail();
  });

  it("skips a filled honeypot", async () => {
    const result = await handler(event((payload) => (payload.data["bot-field"] = "spam")));
    expect(result).toEqual({ statusCode: 200, body: "Ignored: the honeypot is filled." });
    expect(api.calls).toEqual([]);
    noMail();
  });

  it.each(["https://evil.test", "https://jointandem.app.evil.test", "not a url", ""])(
    "skips a submission to a foreign site_url (%j)",
    async (siteUrl) => {
      const result = await handler(event((payload) => (payload.site_url = siteUrl)));
      expect(result).toEqual({ statusCode: 200, body: "Ignored: a submission to another site." });
      noMail();
    },
  );

  it("sends no second confirmation to an address an earlier submission has, across pages", async () => {
    // 150 older submissions: the earlier one with Ada's address (spelled otherwise) is on page 2.
    for (let n = 0; n < 149; n++) api.submissions.push(older(n, `someone${n}@example.com`));
    api.submissions.push(older(149, "ADA@Example.com"));
    const result = await handler(event());
    expect(result).toEqual({
      statusCode: 200,
      body: "Ignored: this address signed up before and had its confirmation.",
    });
    expect(api.calls.map((call) => call.url)).toContain(
      `/api/v1/forms/${waitlistFormId}/submissions?page=2&per_page=100`,
    );
    noMail();
  });

  it("still confirms the first of two submissions of one address", async () => {
    // The later submission is the repeat: the event for the first one mails.
    api.submissions.unshift({ ...older(0, "ada@example.com", -5), id: "newer" });
    await expect(handler(event())).resolves.toEqual({ statusCode: 200, body: "Confirmation sent." });
    expect(smtp.deliveries).toHaveLength(1);
  });

  it.each([
    ["NETLIFY_API_TOKEN", "NETLIFY_API_TOKEN is not set"],
    ["SITE_ID", "SITE_ID (or NETLIFY_SITE_ID) is not set"],
    ["WAITLIST_SECRET", "WAITLIST_SECRET is not set"],
  ])("without %s, answers 503, logs one line naming it, and mails nobody", async (variable, problem) => {
    delete process.env[variable];
    await expect(handler(event())).resolves.toEqual({ statusCode: 503, body: `${problem}; no confirmation sent.` });
    expect(console.error).toHaveBeenCalledTimes(1);
    expect(console.error).toHaveBeenCalledWith(
      `submission-created: ${problem}: set it in Netlify's environment variables, with the Functions scope. No confirmation sent.`,
    );
    expect(api.calls).toEqual([]);
    noMail();
  });

  it("refuses to run without SMTP_URL rather than losing the message quietly", async () => {
    delete process.env.SMTP_URL;
    await expect(handler(event())).resolves.toEqual({
      statusCode: 503,
      body: "SMTP_URL is not set; no confirmation sent.",
    });
    expect(console.error).toHaveBeenCalledWith(expect.stringMatching(/SMTP_URL is not set/));
  });

  it("answers 502 and mails nobody when Netlify's API fails", async () => {
    api.failWith = 500;
    const result = await handler(event());
    expect(result).toEqual({ statusCode: 502, body: "Netlify's API could not be read; no confirmation sent." });
    noMail();
  });

  it("answers 502 when the mail server is down", async () => {
    process.env.SMTP_URL = `smtp://127.0.0.1:${await closedPort()}`;
    const result = await handler(event());
    expect(result.statusCode).toBe(502);
    expect(console.error).toHaveBeenCalledWith(expect.stringMatching(/confirmation to a\*\*\*@example\.com failed/));
  });

  it.each([
    ["no e-mail", (payload: Payload) => delete (payload.data as Record<string, unknown>).email],
    ["an invalid e-mail", (payload: Payload) => (payload.data.email = "ada@")],
    ["a quoted local part", (payload: Payload) => (payload.data.email = '"<victim@evil.test>"@example.com')],
  ])("answers 400 for %s and sends nothing", async (_name, change) => {
    const result = await handler(event(change));
    expect(result.statusCode).toBe(400);
    expect(result.body).toMatch(/^No confirmation sent: /);
    noMail();
  });

  it.each(["form-name=waitlist", "null", '"text"', '{"payload":null}'])("answers 400 for the body %j", async (body) => {
    const result = await handler({ body });
    expect(result.statusCode).toBe(400);
    noMail();
  });
});
