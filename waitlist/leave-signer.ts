import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { Store } from "@netlify/blobs";

/*
 * On Netlify, which secret the functions sign leave links with, for the founders' commands (--netlify) to sign alike:
 * settings/leave-signer in the site's Blobs store says "store" (the store's own secret) or holds a mark of
 * WAITLIST_SECRET from Netlify's environment. The functions note it when they open the waitlist; a command checks its
 * own WAITLIST_SECRET against it before it makes a link.
 */

/**
 * What the store keeps to recognise WAITLIST_SECRET: scrypt of it under a random salt. A plain hash lets anyone who
 * can read the store test guesses at a weak secret at billions a second; a scrypt guess costs 16 MiB and tens of ms.
 */
const markPrefix = "environment-scrypt";
const scryptOptions = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const derive = (secret: string, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(secret, salt, 32, scryptOptions, (error, key) => (error ? reject(error) : resolve(key))),
  );
async function signerMark(secret: string): Promise<string> {
  const salt = randomBytes(16);
  return `${markPrefix} ${salt.toString("base64url")} ${(await derive(secret, salt)).toString("base64url")}`;
}
/** Whether `mark` was made for `secret`: the mark, or the plain hash an earlier version wrote. */
async function marks(mark: string, secret: string): Promise<boolean> {
  if (mark === `environment ${createHash("sha256").update(secret, "utf8").digest("hex")}`) return true;
  const [prefix, salt, key] = mark.split(" ");
  if (prefix !== markPrefix || !salt || !key) return false;
  const wanted = Buffer.from(key, "base64url");
  const derived = await derive(secret, Buffer.from(salt, "base64url"));
  return wanted.length === derived.length && timingSafeEqual(wanted, derived);
}

/**
 * Which secret the functions sign leave links with: the store's, or WAITLIST_SECRET from Netlify's environment,
 * recognised by its scrypt. Written when a function opens the waitlist, unless it says so already.
 */
const key = "settings/leave-signer";

export async function noteSigner(blobs: Store, configured: string | undefined): Promise<void> {
  if (!configured) return void (await blobs.set(key, "store"));
  const noted = await blobs.get(key, { type: "text", consistency: "strong" });
  if (noted?.startsWith(`${markPrefix} `) && (await marks(noted, configured))) return;
  await blobs.set(key, await signerMark(configured));
}

/** Why `configured` (the founder's WAITLIST_SECRET) would sign other links than the functions do; undefined when it would not. */
export async function signerProblem(blobs: Store, configured: string | undefined): Promise<string | undefined> {
  const signer = await blobs.get(key, { type: "text", consistency: "strong" });
  if (!signer || signer === "store") {
    return configured
      ? "Netlify's functions sign leave links with the secret their store keeps: unset WAITLIST_SECRET in your shell."
      : undefined;
  }
  if (configured && (await marks(signer, configured))) return undefined;
  return "Netlify's functions sign leave links with the WAITLIST_SECRET of Netlify's environment: set the same value in your shell.";
}
