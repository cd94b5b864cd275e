import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { clientKey } from "../client-address";
import { refuse, type Outcome } from "./http";

/* The endpoints' limits per client, counted in memory per server or function instance. */

/** Counts one request of a client (clientKey) against `limiter`; a 429 once it has used its share. */
export async function rateLimited(
  limiter: RateLimiterMemory,
  clientIp: string,
  what: string,
): Promise<Outcome | undefined> {
  try {
    await limiter.consume(clientKey(clientIp));
    return undefined;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    return refuse(429, `Too many ${what} from your network; try again in ${seconds} seconds.`, {
      "Retry-After": String(seconds),
    });
  }
}

/** The e-mail links' limit (confirm and leave alike): `perMinute` requests per client per minute. */
export const linkLimiter = (perMinute: number) => new RateLimiterMemory({ points: perMinute, duration: 60 });
