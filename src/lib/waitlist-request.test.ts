import { site } from "../../config/site";
import { submitWaitlist as submit, waitlistBody as body } from "./waitlist-request";

const fields = site.waitlist;
const waitlistBody = (email: string, honeypot = "") => body(fields, email, honeypot);
const submitWaitlist = (email: string, { fetchImpl }: { fetchImpl: typeof fetch }) =>
  submit(fields, waitlistBody(email), fetchImpl);

function respond(status: number) {
  return jest.fn<Promise<Response>, Parameters<typeof fetch>>(() =>
    Promise.resolve({ ok: status >= 200 && status < 300, status } as Response),
  );
}

describe("submitWaitlist", () => {
  it("POSTs the urlencoded form-name and email to the site root", async () => {
    const fetchImpl = respond(200);
    await submitWaitlist("ada+tiktok@example.com", { fetchImpl });
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe("/");
    expect(init?.method).toBe("POST");
    expect(new Headers(init?.headers).get("Content-Type")).toBe("application/x-www-form-urlencoded");
    const body = new URLSearchParams(String(init?.body));
    expect(body.get("form-name")).toBe("waitlist");
    expect(body.get("email")).toBe("ada+tiktok@example.com");
    expect(body.get("bot-field")).toBe("");
    expect(String(init?.body)).toBe("form-name=waitlist&email=ada%2Btiktok%40example.com&bot-field=");
  });

  it("carries the honeypot value as a bot would have filled it", () => {
    expect(new URLSearchParams(waitlistBody("a@b.co", "spam")).get("bot-field")).toBe("spam");
  });

  it.each([200, 201, 204])("reads a %i reply as ok", async (status) => {
    await expect(submitWaitlist("a@b.co", { fetchImpl: respond(status) })).resolves.toBe("ok");
  });

  it.each([301, 400, 404, 422, 429, 500, 503])("reads a %i reply as a server error", async (status) => {
    await expect(submitWaitlist("a@b.co", { fetchImpl: respond(status) })).resolves.toBe("server-error");
  });

  it("reads a rejected fetch as a network error", async () => {
    const fetchImpl = jest.fn(() => Promise.reject(new TypeError("Failed to fetch")));
    await expect(submitWaitlist("a@b.co", { fetchImpl })).resolves.toBe("network-error");
  });
});
