import { readFileSync } from "node:fs";
import path from "node:path";
import { handler } from "../../netlify/functions/submission-created";
import { closedPort, startSmtpServer, type TestSmtpServer } from "./smtp";

const sample = JSON.parse(
  readFileSync(path.resolve(__dirname, "../fixtures/netlify/submission-created.json"), "utf8"),
) as { payload: { form_name: string; data: Record<string, string> } };

function event(change: (payload: (typeof sample)["payload"]) => void = () => {}) {
  const copy = structuredClone(sample);
  change(copy.payload);
  return { body: JSON.stringify(copy) };
}

let smtp: TestSmtpServer;
const savedEnv = { ...process.env };
beforeEach(async () => {
  smtp = await startSmtpServer();
  process.env.SMTP_URL = smtp.url;
  jest.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(async () => {
  process.env = { ...savedEnv };
  jest.restoreAllMocks();
  await smtp.close();
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe("netlify/functions/submission-created", () => {
  it("sends one confirmation for a waitlist submission", async () => {
    await expect(handler(event())).resolves.toEqual({ statusCode: 200, body: "Confirmation sent." });
    await settle();
    expect(smtp.deliveries).toHaveLength(1);
    expect(smtp.deliveries[0]!.envelope.to).toEqual(["ada@example.com"]);
    expect(smtp.deliveries[0]!.mail.subject).toBe("You're on the Tandem waitlist");
  });

  it("ignores submissions of other forms", async () => {
    const result = await handler(
      event((payload) => {
        payload.form_name = "contact";
        payload.data["form-name"] = "contact";
      }),
    );
    expect(result).toEqual({ statusCode: 200, body: 'Ignored: a submission of form "contact".' });
    await settle();
    expect(smtp.deliveries).toHaveLength(0);
  });

  it.each([
    ["no e-mail", (payload: (typeof sample)["payload"]) => delete (payload.data as Record<string, unknown>).email],
    ["an invalid e-mail", (payload: (typeof sample)["payload"]) => (payload.data.email = "ada@")],
  ])("answers 400 for %s and sends nothing", async (_name, change) => {
    const result = await handler(event(change));
    expect(result.statusCode).toBe(400);
    expect(result.body).toMatch(/^No confirmation sent: /);
    await settle();
    expect(smtp.deliveries).toHaveLength(0);
  });

  it("answers 400 for a body that is not JSON", async () => {
    await expect(handler({ body: "form-name=waitlist" })).resolves.toEqual({
      statusCode: 400,
      body: "The event body is not JSON.",
    });
  });

  it("refuses to run without SMTP_URL rather than losing the message quietly", async () => {
    delete process.env.SMTP_URL;
    await expect(handler(event())).resolves.toEqual({
      statusCode: 500,
      body: "SMTP_URL is not set; no confirmation sent.",
    });
    expect(console.error).toHaveBeenCalledWith(expect.stringMatching(/SMTP_URL is not set/));
  });

  it("answers 502 when the mail server is down", async () => {
    process.env.SMTP_URL = `smtp://127.0.0.1:${await closedPort()}`;
    const result = await handler(event());
    expect(result.statusCode).toBe(502);
    expect(console.error).toHaveBeenCalledWith(expect.stringMatching(/confirmation to a\*\*\*@example\.com failed/));
  });
});
