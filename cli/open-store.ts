import { signerProblem } from "../waitlist/leave-signer";
import path from "node:path";
import { mailConfig, mailLimits, serverConfig, waitlistConfig, type Env } from "../config/env";
import { projectFolders } from "../config/folders";
import { signingSecret } from "../waitlist/create-waitlist";
import { fingerprintKeyFrom, fingerprintKeyOf, type FingerprintKey } from "../waitlist/fingerprints";
import { forgetOutboxCopies } from "../waitlist/mail/mailer";
import { createMailPace, unlimitedPace, type MailPace } from "../waitlist/mail/pace";
import { blobsPaceShards } from "../waitlist/stores/blobs-store";
import { openPostgresStore } from "../waitlist/stores/postgres-store";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import type { FullStore } from "../waitlist/stores/store";
import { NetlifySetupError, openNetlifyAccess, type NetlifyAccess } from "./netlify-access";

export interface OpenedStore {
  store: FullStore;
  /** Deletes the copies of a removed address's mail kept on this machine (the outbox); after each removal. */
  forget: (email: string) => void;
  /** Where the list is, for the reader: a file, or a Netlify site. */
  name: string;
  netlify?: NetlifyAccess;
  /** The paces opened over it (paceOf): their connections' leases given back as the command ends (cli/run.ts). */
  paces?: MailPace[];
}

/**
 * The store the commands work on: a Netlify site's Blobs store (--netlify),
 * the Postgres database of DATABASE_URL, or the SQLite file. What a command
 * removes goes from this machine's outbox too (`forget`), as on the running
 * site, whichever store it is: an outbox an earlier command wrote here holds
 * a Netlify site's people as well.
 */
export async function openStore(env: Env, netlify: boolean): Promise<OpenedStore> {
  const { outboxDir } = mailConfig(env);
  const forget = (email: string) => forgetOutboxCopies(outboxDir, email);
  if (netlify) {
    const access = await openNetlifyAccess(env);
    return { store: access.store, forget, name: `Netlify site ${access.siteName}`, netlify: access };
  }
  const { dbFile, databaseUrl } = serverConfig(env);
  if (databaseUrl) {
    const store = await openPostgresStore(databaseUrl, {
      migrations: projectFolders.migrations,
      warn: (message) => console.error(message),
    });
    const { host, pathname } = new URL(databaseUrl);
    return { store, forget, name: `the Postgres database ${pathname.slice(1)} on ${host}` };
  }
  const relative = path.relative(process.cwd(), dbFile);
  return { store: SqliteStore.openExisting(dbFile), forget, name: relative.startsWith("..") ? dbFile : relative };
}

/** The secret the site's links are sealed with, as the site finds it; on Netlify, the site's own. */
export async function linkSecretOf({ store, netlify }: OpenedStore, env: Env): Promise<string> {
  const configured = waitlistConfig(env).linkSecret;
  const problem = netlify && (await signerProblem(netlify.store.blobs, configured));
  if (problem) throw new NetlifySetupError(problem);
  return signingSecret(store, configured);
}

/** The key of the fingerprints that outlive an entry (leavers, suppressions), as the site has it: the store's own. */
export async function fingerprintKeyIn(opened: OpenedStore, env: Env): Promise<FingerprintKey> {
  return fingerprintKeyOf(opened.store, await linkSecretOf(opened, env));
}

/**
 * The fingerprint key as the site has it, without making it or the links' secret: a dry run writes nothing. The key
 * kept, else the one the links' secret (WAITLIST_SECRET, or the one kept) would make on first use, under which every
 * fingerprint made before was; undefined when the site has neither (then nothing was ever held).
 */
export async function existingFingerprintKey({ store }: OpenedStore, env: Env): Promise<FingerprintKey | undefined> {
  const none = new Error("not kept yet");
  const kept = (name: "fingerprint" | "leave") =>
    store
      .secret(name, () => {
        throw none;
      })
      .catch((error: unknown) => {
        if (error === none) return undefined;
        throw error;
      });
  const key = await kept("fingerprint");
  if (key !== undefined) return { bytes: Buffer.from(key, "hex") };
  const secret = waitlistConfig(env).linkSecret ?? (await kept("leave"));
  return secret === undefined ? undefined : fingerprintKeyFrom(secret);
}

/**
 * The one pace every sender keeps (waitlist/mail/pace.ts), as the site keeps it: in the store the site uses, in the
 * same shards as its own senders, so a founder's command and the running site send within the provider's limits
 * together. None for the outbox folder.
 */
export function paceOf(opened: OpenedStore, env: Env): MailPace {
  const { store, netlify } = opened;
  const limits = mailLimits(env);
  if (!limits) return unlimitedPace;
  const pace = createMailPace({
    store,
    limits,
    shards: netlify ? blobsPaceShards : undefined,
    log: (line) => console.error(line),
  });
  (opened.paces ??= []).push(pace);
  return pace;
}
