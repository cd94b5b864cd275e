import http from "node:http";
import type { AddressInfo } from "node:net";

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
  const standIn: Omit<NetlifyApiStandIn, "url" | "close"> = { calls: [], forms: [], submissions: [] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    standIn.calls.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization });
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
