import type { Env } from "../config/env";
import { keyedDigest } from "../waitlist/fingerprints";
import type { MailBookkeeping } from "../waitlist/stores/store";

/*
 * How the site's functions start a drain of the mail owed (drain.ts), and the token only they can make. One drain
 * sends at a time, under a lease in the store's settings; a drain asked for while one runs is marked wanted, and the
 * running one starts the next as it ends. Each side writes before it reads the other's mark, so no asking is lost
 * between a drain's last read and its end.
 */

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

/** The running drain's lease: until when it may run, and whether another was asked for meanwhile. */
export interface DrainLease {
  until: number;
  wanted: boolean;
}
export const drainSetting = "drain";

/**
 * Asks for a drain: starts one when none runs; marks the running one's lease wanted otherwise (one read, and a write
 * the first time), so that it starts the next as it ends.
 */
export async function askForDrain(
  store: Pick<MailBookkeeping, "swapSetting">,
  env: Env,
  secret: string,
  log: (line: string) => void,
): Promise<void> {
  const now = Date.now();
  let running = false;
  await store.swapSetting<DrainLease>(drainSetting, (found) => {
    running = found !== undefined && found.until > now;
    return running && !found!.wanted ? { ...found!, wanted: true } : undefined;
  });
  if (!running) await startDrain(env, secret, log);
}
