import type { Env } from "../config/env";
import { keyedDigest } from "../waitlist/fingerprints";

/* How the site's functions start a drain of the mail owed (drain.ts), and the token only they can make. */

export const drainPath = "/waitlist/drain";
export const drainHeader = "x-waitlist-drain";

/** The token the site's functions start a drain with: a keyed digest under the site's secret. */
export const drainToken = (secret: string) => keyedDigest(secret, "drain", drainPath);

/** Starts a drain on the site's own address (Netlify's URL, else SITE_URL); a failure is logged: the caller goes on. */
export async function startDrain(env: Env, secret: string, log: (line: string) => void): Promise<void> {
  const url = new URL(drainPath, env.URL ?? env.SITE_URL);
  try {
    const answer = await fetch(url, {
      method: "POST",
      headers: { [drainHeader]: drainToken(secret) },
      signal: AbortSignal.timeout(10_000),
    });
    if (answer.status !== 202) log(`a drain of the mail owed was not started: ${url.host} answered ${answer.status}`);
  } catch (error) {
    log(`a drain of the mail owed was not started: ${(error as Error).message}`);
  }
}
