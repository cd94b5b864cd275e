import { Readable } from "node:stream";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { refuse, type FormRequest } from "./http";
import { linkPageHandler, type LinkPage } from "./link-page";

const request = (method: string, accept: string): FormRequest => ({
  method,
  headers: { accept },
  query: "token=x",
  clientIp: "203.0.113.1",
  ownOrigins: () => [],
  body: Readable.from([]),
});

describe("linkPageHandler", () => {
  const failing = () => Promise.reject(new Error("the database is down"));
  const page = (overrides: Partial<LinkPage<string>>): LinkPage<string> => ({
    limiter: new RateLimiterMemory({ points: 100, duration: 60 }),
    invalid: refuse(400, "This link is not valid."),
    verify: (token) => (token === "x" ? "the signup" : undefined),
    show: failing,
    act: failing,
    whatFailed: "confirm a signup",
    failure: () => "Your spot could not be confirmed just now.",
    warn: () => {},
    ...overrides,
  });

  it("answers a link opened in a browser with the 500 page, logs why, and sends the link pages' headers", async () => {
    const warnings: string[] = [];
    const handle = linkPageHandler(page({ warn: (line) => warnings.push(line) }));
    const reply = await handle(request("GET", "text/html"));
    expect(reply.status).toBe(500);
    expect(reply.headers["Content-Type"]).toBe("text/html; charset=utf-8");
    expect(reply.headers["Referrer-Policy"]).toBe("strict-origin");
    expect(reply.headers["X-Robots-Tag"]).toBe("noindex");
    expect(reply.headers["Cache-Control"]).toBe("no-store");
    expect(reply.body).toContain("Your spot could not be confirmed just now.");
    expect(warnings).toEqual(["waitlist: could not confirm a signup: the database is down"]);
  });

  it("answers a script's POST with one line, and a decision as it was made", async () => {
    const handle = linkPageHandler(page({ whatFailed: "remove an address", failure: () => "Not now." }));
    const reply = await handle(request("POST", "*/*"));
    expect([reply.status, reply.body, reply.headers["Content-Type"]]).toEqual([
      500,
      "Not now.\n",
      "text/plain; charset=utf-8",
    ]);
    const decided = linkPageHandler(page({ act: async () => ({ outcome: refuse(409, "Not now."), html: false }) }));
    const refused = await decided(request("POST", "*/*"));
    expect([refused.status, refused.body, refused.headers["X-Robots-Tag"]]).toEqual([409, "Not now.\n", "noindex"]);
  });

  it("shows a link's page with its token, and the invalid page for a token that does not open", async () => {
    const shown: [string, string][] = [];
    const handle = linkPageHandler(
      page({
        show: (found, token) => {
          shown.push([found, token]);
          return { status: 200, heading: "Confirm?", message: "One press." };
        },
      }),
    );
    const opened = await handle(request("GET", "text/html"));
    expect([opened.status, shown]).toEqual([200, [["the signup", "x"]]]);
    const forged = await handle({ ...request("GET", "text/html"), query: "token=y" });
    const twice = await handle({ ...request("GET", "text/html"), query: "token=x&token=x" });
    const broken = await handle({ ...request("GET", "text/html"), query: "token=%FF" });
    for (const reply of [forged, twice, broken]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toContain("This link is not valid.");
    }
    expect(shown).toHaveLength(1);
  });
});
