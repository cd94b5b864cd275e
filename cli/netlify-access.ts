import { getStore } from "@netlify/blobs";
import { NetlifyAPI } from "@netlify/api";
import type { Env } from "../config/env";
import { site } from "../config/site";
import { blobsStore, blobsStoreName, type BlobsStore } from "../waitlist/stores/blobs-store";

/*
 * The founders' way to the Netlify deployment's waitlist from their own
 * machine: its Netlify Blobs store, through Netlify's API with a personal
 * access token (NETLIFY_API_TOKEN) for one site (NETLIFY_SITE_ID). Every
 * read and write is an API call, and the API allows 500 a minute per token;
 * @netlify/blobs waits out a 429 on its own (X-RateLimit-Reset).
 */

/**
 * fetch, waiting out Netlify's rate limit: on a 429 it waits until the time
 * X-RateLimit-Reset names (at least a second) and asks again. @netlify/blobs
 * retries a 429 five times on its last request of an operation but not on the
 * API call before it, and a whole-list command may make hundreds.
 */
export function waitingFetch(
  onWait: (seconds: number) => void = () => {},
  sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
): typeof fetch {
  return async (input, init) => {
    for (;;) {
      const response = await fetch(input, init);
      if (response.status !== 429) return response;
      const reset = Number(response.headers.get("x-ratelimit-reset"));
      const ms = Math.max(1000, Number.isFinite(reset) && reset > 0 ? reset * 1000 - Date.now() : 60_000);
      onWait(Math.ceil(ms / 1000));
      await sleep(ms);
    }
  };
}

/** A variable the command needs is missing or wrong: one line that names it. */
export class NetlifySetupError extends Error {}

export interface NetlifyAccess {
  api: NetlifyAPI;
  siteId: string;
  /** The site's name, as Netlify shows it. */
  siteName: string;
  store: BlobsStore;
}

/**
 * Checks the token and the site with one API call, so a mistake is a line
 * that says which, then opens the site's waitlist store.
 */
export async function openNetlifyAccess(
  env: Env,
  onWait: (seconds: number) => void = (seconds) =>
    console.error(`Netlify's API allows 500 calls a minute: waiting ${seconds} s for the next minute…`),
): Promise<NetlifyAccess> {
  const token = env.NETLIFY_API_TOKEN;
  if (!token)
    throw new NetlifySetupError(
      "NETLIFY_API_TOKEN is not set: a personal access token from User settings → Applications.",
    );
  const siteId = env.NETLIFY_SITE_ID ?? env.SITE_ID;
  if (!siteId)
    throw new NetlifySetupError("NETLIFY_SITE_ID is not set: the Site ID from Site configuration → General.");
  const apiUrl = new URL(env.NETLIFY_API_URL);
  const api = new NetlifyAPI(token, {
    scheme: apiUrl.protocol.replace(/:$/, ""),
    host: apiUrl.host,
    pathPrefix: apiUrl.pathname.replace(/\/+$/, ""),
    userAgent: `${site.name.toLowerCase()}-waitlist`,
  });
  let siteName: string;
  try {
    siteName = String(((await api.getSite({ site_id: siteId })) as { name?: unknown }).name ?? siteId);
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 401)
      throw new NetlifySetupError("Netlify's API refused NETLIFY_API_TOKEN (401): make a new personal access token.");
    if (status === 404)
      throw new NetlifySetupError(`NETLIFY_SITE_ID ${siteId} names no site this token can see (404).`);
    throw error;
  }
  const store = blobsStore(
    getStore({
      name: blobsStoreName,
      siteID: siteId,
      token,
      apiURL: apiUrl.origin,
      consistency: "strong",
      fetch: waitingFetch(onWait),
    }),
  );
  return { api, siteId, siteName, store };
}
