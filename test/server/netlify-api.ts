import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { startSmtpServer, type TestSmtpServer } from "./smtp";

/** A request the stand-in received. */
export interface ApiCall {
  method: string;
  /** Path and query, as sent. */
  url: string;
  authorization: string | undefined;
}

export interface StandInSubmission {
  id: string;
  form_id: string;
  created_at: string;
  site_url: string;
  data: Record<string, string>;
}

export interface NetlifyApiStandIn {
  /** For NETLIFY_API_URL. */
  url: string;
  calls: ApiCall[];
  /** Every call's request headers, in the order of `calls`. */
  headers: IncomingHttpHeaders[];
  /** The site's forms; edit freely. */
  forms: { id: string; name: string }[];
  /** Every form's submissions, newest first, as Netlify lists them; edit freely. */
  submissions: StandInSubmission[];
  /** Answer every request with this status instead (Netlify having a bad day). */
  failWith?: number;
  close(): Promise<void>;
}

/**
 * A local HTTP server standing in for Netlify's API (https://open-api.netlify.com),
 * the one edge we don't own: the routes the waitlist uses, under /api/v1, for
 * one site, with its pagination (page, per_page) and its 404s. It records every
 * call with its Authorization header.
 */
export async function startNetlifyApi({
  siteId,
  token,
}: {
  siteId: string;
  token: string;
}): Promise<NetlifyApiStandIn> {
  const standIn: Omit<NetlifyApiStandIn, "url" | "close"> = { calls: [], headers: [], forms: [], submissions: [] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    standIn.calls.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization });
    standIn.headers.push(req.headers);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (standIn.failWith) return send(standIn.failWith, { code: standIn.failWith, message: "Internal Server Error" });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { code: 401, message: "Access Denied" });
    let match: RegExpMatchArray | null;
    if (req.method === "GET" && (match = url.pathname.match(/^\/api\/v1\/sites\/([^/]+)\/forms$/))) {
      return match[1] === siteId ? send(200, standIn.forms) : send(404, { code: 404, message: "Not Found" });
    }
    if (req.method === "GET" && (match = url.pathname.match(/^\/api\/v1\/forms\/([^/]+)\/submissions$/))) {
      const page = Number(url.searchParams.get("page") ?? "1");
      const perPage = Number(url.searchParams.get("per_page") ?? "100");
      const ofForm = standIn.submissions.filter((submission) => submission.form_id === match![1]);
      return send(200, ofForm.slice((page - 1) * perPage, page * perPage));
    }
    if ((match = url.pathname.match(/^\/api\/v1\/submissions\/([^/]+)$/))) {
      const index = standIn.submissions.findIndex((submission) => submission.id === decodeURIComponent(match![1]!));
      if (index < 0) return send(404, { code: 404, message: "Not Found" });
      if (req.method === "GET") return send(200, standIn.submissions[index]);
      if (req.method === "DELETE") {
        standIn.submissions.splice(index, 1);
        res.writeHead(204).end();
        return;
      }
    }
    send(404, { code: 404, message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The site a Netlify function's tests run as. */
export const netlifySite = {
  siteId: "5d0f6a48-1b7e-4c1e-9a57-0c7bb2f7e0aa",
  token: "nfp_test-token",
  /** Its waitlist form, as the sample event names it (test/fixtures/netlify). */
  formId: "665dd8f0c6a1b20008a1b2c3",
  leaveSecret: "the-founders-secret-for-leave-links",
} as const;

/**
 * Around each test of a Netlify function: a real SMTP server, the API's
 * stand-in with the site's forms (waitlist and contact), the environment
 * Netlify would give the function, and its console.error recorded. Read
 * `functions.api` and `functions.smtp` inside tests.
 */
export function setUpNetlifyFunctions(): { api: NetlifyApiStandIn; smtp: TestSmtpServer } {
  const functions = {} as { api: NetlifyApiStandIn; smtp: TestSmtpServer };
  const savedEnv = { ...process.env };
  beforeEach(async () => {
    functions.smtp = await startSmtpServer();
    functions.api = await startNetlifyApi({ siteId: netlifySite.siteId, token: netlifySite.token });
    functions.api.forms.push({ id: "contact-form", name: "contact" }, { id: netlifySite.formId, name: "waitlist" });
    Object.assign(process.env, {
      SMTP_URL: functions.smtp.url,
      NETLIFY_API_TOKEN: netlifySite.token,
      SITE_ID: netlifySite.siteId,
      NETLIFY_API_URL: functions.api.url,
      WAITLIST_SECRET: netlifySite.leaveSecret,
    });
    jest.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(async () => {
    process.env = { ...savedEnv };
    jest.restoreAllMocks();
    await functions.smtp.close();
    await functions.api.close();
  });
  return functions;
}
