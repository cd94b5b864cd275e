// The leave link on Netlify: netlify.toml sends /waitlist/leave here.
// https://docs.netlify.com/functions/overview/
// The same endpoint as npm start's (server/leave.ts): the same token check,
// pages and one-click POST; the address is removed from Netlify Forms by
// deleting every waitlist submission that holds it, through Netlify's API.
import { Readable } from "node:stream";
import { readEnv, serverConfig, type Env } from "../../config/env";
import { formReply, refuse, type FormReply } from "../../waitlist/form-request";
import { createLeave, leaveLimiter, privateHeaders } from "../../waitlist/leave";
import { netlifyForms, netlifySiteOrigins, requiredLeaveSecret, setupProblemLine } from "../../server/netlify-forms";

export interface HttpEvent {
  httpMethod: string;
  headers: Record<string, string | undefined>;
  /** The query string without "?", as Netlify passes it. */
  rawQuery?: string;
  body: string | null;
  isBase64Encoded?: boolean;
}

export interface HttpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const log = (line: string) => console.error(`waitlist-leave: ${line}`);

// One count per client for as long as this instance lives: Netlify runs several, so it is a bound, not a guarantee.
let limiter: ReturnType<typeof leaveLimiter> | undefined;

export async function handler(event: HttpEvent): Promise<HttpResult> {
  let env: Env | undefined;
  const { "content-length": _length, ...headers } = event.headers;
  const method = event.httpMethod.toUpperCase();
  const request = {
    method,
    headers,
    query: event.rawQuery ?? "",
    // Netlify's edge sets this header itself, from the connection.
    clientIp: headers["x-nf-client-connection-ip"] ?? "unknown",
    ownOrigins: () => (env ? netlifySiteOrigins(env) : []),
    body: Readable.from([Buffer.from(event.body ?? "", event.isBase64Encoded ? "base64" : "utf8")]),
  };
  const result = ({ status, headers, body }: FormReply): HttpResult => ({
    statusCode: status,
    headers,
    body: method === "HEAD" ? "" : body,
  });
  let leave: ReturnType<typeof createLeave>;
  try {
    env = readEnv();
    const secret = requiredLeaveSecret(env);
    const forms = netlifyForms(env);
    limiter ??= leaveLimiter(serverConfig(env).leaveRateLimitPerMinute);
    leave = createLeave({
      secret,
      remove: async (address) => void (await forms.removeAddress(address.key)),
      limiter,
      warn: log,
    });
  } catch (error) {
    // A NetlifySetupError or a ConfigError: either way one line that names the variable.
    const problem = (error as Error).message;
    log(`${setupProblemLine(problem)} Leave links can't be checked.`);
    const outcome = refuse(
      503,
      // Without a readable environment there is no contact address to give, only the problem.
      `Leaving by link is not set up on this site yet (${problem}). ${env ? `Write to ${env.CONTACT_EMAIL}` : "Write to us"} and we will take your address off the list.`,
      privateHeaders,
    );
    return result(formReply(request, outcome, { html: method !== "POST" }));
  }
  return result(await leave.handle(request));
}
