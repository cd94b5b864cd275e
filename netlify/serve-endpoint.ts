import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Context } from "@netlify/functions";
import { ConfigError, readEnv, waitlistConfig, type Env } from "../config/env";
import { refuse, type FormReply, type FormRequest } from "../waitlist/endpoints/http";
import { formReply } from "../waitlist/endpoints/reply";
import type { Waitlist } from "../waitlist/create-waitlist";
import { isPreview, log, netlifySiteOrigins, netlifyWaitlist } from "./netlify-waitlist";
import { createSignup, type SignupEndpoint } from "../waitlist/endpoints/signup";
import { mailEventProvider } from "../waitlist/routes";

/*
 * The HTTP adapter of Netlify's functions (Functions 2.0: a web Request in, a
 * Response out), as server/waitlist-middleware.ts is npm start's: the endpoints in
 * waitlist/ neither know nor care which one handed them the request.
 */

/** What a function needs of Netlify's context: the client's address, and work that may outlive the reply. */
export type FunctionContext = Pick<Context, "ip" | "waitUntil"> & { deploy?: Pick<Context["deploy"], "context"> };

/**
 * A FormRequest from a function's Request. This site's origins are the ones
 * configured (SITE_URL, and Netlify's URL) and the request's own: Netlify
 * routes a request to this function only for a domain of this site, so here,
 * unlike on npm start, the address it came in on names this site.
 */
export function formRequest(request: Request, context: FunctionContext, siteOrigins: readonly string[]): FormRequest {
  const url = new URL(request.url);
  const headers = Object.fromEntries(request.headers);
  return {
    method: request.method,
    headers,
    query: url.search.slice(1),
    clientIp: context.ip,
    ownOrigins: () => [url.origin, ...siteOrigins],
    body: request.body ? Readable.fromWeb(request.body as WebReadableStream) : Readable.from([]),
  };
}

/**
 * The reply as a Response; what it names for after it (a new signup's confirmation, AfterReply) run by the
 * waitlist's runAfterReply() under waitUntil, which keeps the function alive until that work is done. A function
 * that dies first leaves the confirmation owed, and the sweep sends it. A preview has no waitlist: it keeps nothing,
 * so its replies name nothing to do.
 */
export function functionResponse(
  request: Request,
  reply: FormReply,
  context: FunctionContext,
  waitlist?: Pick<Waitlist, "runAfterReply">,
): Response {
  if (reply.afterReply && waitlist) context.waitUntil(waitlist.runAfterReply(reply.afterReply));
  return new Response(request.method === "HEAD" ? null : reply.body, { status: reply.status, headers: reply.headers });
}

/** Which of the waitlist's endpoints a function serves: "mail-events" is each provider's, by the request's path. */
export type EndpointName = "signup" | "leave" | "confirm" | "mail-events";

/**
 * A function that serves one endpoint: the request adapted, answered by the
 * shared endpoint, the reply written back. A problem with the setup (a bad
 * variable, no Blobs store) is a 503 whose one line says what it is, in the
 * function's log too; it never says more to the visitor than to write to us.
 */
export async function serveEndpoint(
  name: string,
  endpoint: EndpointName,
  request: Request,
  context: FunctionContext,
): Promise<Response> {
  let waitlist: Waitlist;
  let env: Env;
  try {
    env = readEnv();
    if (isPreview(context.deploy?.context)) return previewResponse(name, endpoint, env, request, context);
    waitlist = await netlifyWaitlist(name, env);
  } catch (error) {
    const problem =
      error instanceof ConfigError
        ? error.message
        : `the waitlist's store cannot be opened (${(error as Error).message})`;
    log(name)(`${problem}. Nothing was stored or removed.`);
    const reply = formReply(
      { headers: Object.fromEntries(request.headers) },
      refuse(503, "The waitlist is not available just now; please try again in a few minutes."),
      { html: /\btext\/html\b/.test(request.headers.get("accept") ?? "") },
    );
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  }
  const { pathname } = new URL(request.url);
  // The function's config routes only the three providers' paths to it (routes.ts's mailEventPaths).
  const handler = endpoint === "mail-events" ? waitlist.mailEvents[mailEventProvider(pathname)!] : waitlist[endpoint];
  const reply = await handler.handle(formRequest(request, context, netlifySiteOrigins(env)));
  if (reply.reason) log(name)(`${request.method} ${pathname} ${reply.status} - ${reply.reason}`);
  return functionResponse(request, reply, context, waitlist);
}

let previewSignup: { env: Env; endpoint: SignupEndpoint } | undefined;

/**
 * A deploy preview or branch deploy keeps nothing personal (the Privacy Policy says so): its form is answered as the
 * site answers it, bad addresses and limits included, and nothing is stored or mailed. It opens no store at all: the
 * site's Blobs store (getStore by name) is the same for every deploy, so a preview that opened it would read and
 * write production's list. Links from e-mails lead to the site itself; opened on a preview, they say so.
 */
async function previewResponse(
  name: string,
  endpoint: EndpointName,
  env: Env,
  request: Request,
  context: FunctionContext,
): Promise<Response> {
  const adapted = formRequest(request, context, netlifySiteOrigins(env));
  let reply: FormReply;
  if (endpoint === "signup") {
    if (previewSignup?.env !== env) {
      const { siteUrl, rateLimitPerMinute } = waitlistConfig(env);
      previewSignup = {
        env,
        endpoint: createSignup({ siteUrl, rateLimitPerMinute, source: "netlify", warn: log(name) }),
      };
    }
    reply = await previewSignup.endpoint.handle(adapted);
  } else {
    reply = formReply(adapted, {
      status: 404,
      heading: "This is a preview of the site",
      message: "A preview keeps no signups: open the link from your e-mail on the site itself.",
    });
  }
  return functionResponse(request, reply, context);
}
