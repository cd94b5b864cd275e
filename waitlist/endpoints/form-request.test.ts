import { Readable } from "node:stream";
import { linkPageHandler, refuse, type FormRequest } from "./form-request";

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

  it("answers a link opened in a browser with the 500 page, logs why, and sends the link pages' headers", async () => {
    const warnings: string[] = [];
    const handle = linkPageHandler(failing, {
      whatFailed: "confirm a signup",
      failure: () => "Your spot could not be confirmed just now.",
      warn: (line) => warnings.push(line),
    });
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
    const handle = linkPageHandler(failing, {
      whatFailed: "remove an address",
      failure: () => "Not now.",
      warn: () => {},
    });
    const reply = await handle(request("POST", "*/*"));
    expect([reply.status, reply.body, reply.headers["Content-Type"]]).toEqual([
      500,
      "Not now.\n",
      "text/plain; charset=utf-8",
    ]);
    const decided = linkPageHandler(async () => ({ outcome: refuse(400, "Not valid."), html: false }), {
      whatFailed: "remove an address",
      failure: () => "Not now.",
      warn: () => {},
    });
    const refused = await decided(request("GET", "*/*"));
    expect([refused.status, refused.body, refused.headers["X-Robots-Tag"]]).toEqual([400, "Not valid.\n", "noindex"]);
  });
});
