import http from "node:http";
import type { AddressInfo } from "node:net";

/*
 * The network between a visitor and the site, for the form's error states in
 * engines whose driver cannot intercept requests (WebDriver classic): a
 * front on a port of its own that passes every request on to the site, but
 * can hold the form's POST (a slow reply), answer it 500 (a failing server) or
 * cut its connection (a phone in a tunnel), and keeps the path of every
 * request, for knowing when a page has loaded. It speaks for the visitor's
 * browser to the site, so the Origin and Referer it passes on name the site.
 */

export type FrontMode = "pass" | "hold" | "fail" | "cut";

export interface Front {
  url: string;
  /** What the next form POSTs meet. */
  setMode(mode: FrontMode): void;
  /** Lets held POSTs through. */
  release(): void;
  /** How many form POSTs have come through so far. */
  posts(): number;
  /** The path of every request that has come through so far, in order. */
  requested(): string[];
  close(): Promise<void>;
}

export async function startFront(site: string): Promise<Front> {
  const target = new URL(site);
  let mode: FrontMode = "pass";
  let held: (() => void)[] = [];
  let posts = 0;
  const requested: string[] = [];
  let url = "";

  const pass = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const headers = { ...req.headers, host: target.host };
    for (const name of ["origin", "referer"] as const) {
      const value = headers[name];
      if (typeof value === "string") headers[name] = value.replace(url, target.origin);
    }
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };

  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url ?? "/", url);
    requested.push(pathname);
    const isSignup = req.method === "POST" && pathname === "/";
    if (isSignup) posts++;
    if (!isSignup || mode === "pass") return pass(req, res);
    if (mode === "hold") return void held.push(() => pass(req, res));
    if (mode === "cut") return void req.socket.destroy();
    req.resume();
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("The signup could not be saved.\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    setMode: (next) => (mode = next),
    release() {
      const waiting = held;
      held = [];
      for (const go of waiting) go();
    },
    posts: () => posts,
    requested: () => [...requested],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
