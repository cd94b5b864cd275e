// Where the functions' own requests go in the bench: a function that starts a drain of the mail owed fetches the
// site's /waitlist/drain, and the provider posts its bounces and complaints to the site's SES route; on Netlify both
// reach a function of the site, here the bench's call of the bundled one (deployment.ts). The SES route fetches SNS's
// signing certificate from sns.<region>.amazonaws.com: answered with the key the provider stand-in signs with, as
// test/server/mail-events.test.ts answers it. Requests to a stand-in whose time the simulation does not see (Netlify's
// API, which the founders' commands call) hold the simulated clock while under way, as every request to a stand-in
// does (latency.ts). Anything else goes on as it was.
import type { SimulatedTime } from "./latency";

export interface SiteFetches {
  /** The site's origin, such as https://jointandem.app. */
  site: string;
  /** The site's paths the functions fetch, and who answers each. */
  routes: Record<string, (request: Request) => Promise<Response>>;
  /** The SNS signing certificate, PEM. */
  snsCertificate?: string;
  /** Origins of stand-ins whose requests hold the clock while under way. */
  held: string[];
}

const urlOf = (input: string | URL | Request) =>
  typeof input === "string" ? input : input instanceof URL ? input.href : input.url;

/** Routes this process's fetches as `fetches` says; returns how to undo it. */
export function routeSiteFetches(time: SimulatedTime, { site, routes, snsCertificate, held }: SiteFetches) {
  const previous = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = urlOf(input);
    if (url.startsWith(`${site}/`)) {
      const route = routes[new URL(url).pathname];
      if (!route) return new Response("Not found", { status: 404 });
      // Without the caller's signal: a time-out in real time is none of Netlify's.
      const request = new Request(input, { ...init, signal: undefined });
      return route(request);
    }
    if (snsCertificate !== undefined && new URL(url).hostname.endsWith(".amazonaws.com")) {
      return new URL(url).pathname.endsWith(".pem")
        ? new Response(snsCertificate)
        : new Response("<ConfirmSubscriptionResponse/>");
    }
    if (held.some((origin) => url.startsWith(origin))) return time.busy(() => previous(input, init));
    return previous(input, init);
  };
  return {
    undo() {
      globalThis.fetch = previous;
    },
  };
}
