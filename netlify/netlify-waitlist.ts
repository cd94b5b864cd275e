import path from "node:path";
import { getStore } from "@netlify/blobs";
import { mailConfig, waitlistConfig, type Env } from "../config/env";
import { readPolicySource } from "../config/legal-rules";
import { site } from "../config/site";
import { createWaitlist, type Waitlist } from "../waitlist/create-waitlist";
import { createMailer, type Mailer } from "../waitlist/mail/mailer";
import { policyInForce } from "../waitlist/policies";
import { BlobsStore, blobsStoreName } from "../waitlist/stores/blobs-store";
import { PostgresStore, type PgPool } from "../waitlist/stores/postgres-store";
import { StoreError } from "../waitlist/stores/store";

/*
 * The waitlist as Netlify's functions run it: the shared waitlist over the site's Netlify Blobs store, which every
 * site has and which costs next to nothing at rest; or, on a site whose founder turned Netlify Database on
 * (docs/netlify.md: `npm install @netlify/database`), over that database. Mail goes through SMTP_URL. Opened once per
 * function instance and kept while it lives (its rate limits count per instance, on top of Netlify's own).
 */

/** The store the functions keep the waitlist in: the site's Blobs store, or Netlify Database's. */
export type NetlifyStore = BlobsStore | PostgresStore;

export const log = (name: string) => (line: string) => console.error(`${name}: ${line}`);

/**
 * Without SMTP_URL there is no mail server to send through (a function has
 * no outbox): every attempt fails for now, with a reason that names the
 * variable, and the confirmation stays owed until it is set. Signups are
 * stored all the same.
 */
function netlifyMailer(env: Env): Mailer {
  const config = mailConfig(env);
  if (config.smtpUrl) return createMailer(config);
  return {
    destination: "nowhere: SMTP_URL is not set",
    send: async () => {
      throw new Error(
        "SMTP_URL is not set in Netlify's environment variables (Functions scope); the confirmation stays owed.",
      );
    },
    close: () => {},
  };
}

/** This site's origins on Netlify: SITE_URL's, and the one Netlify names in URL. */
export function netlifySiteOrigins(env: Env): string[] {
  return [env.SITE_URL, env.URL].flatMap((url) => (url ? [new URL(url).origin] : []));
}

/** Confirmation e-mails a function instance has in flight at most: the connections it opens to the mail server. */
export const netlifySendsAtOnce = 20;

/**
 * The Privacy Policy in force. A function is a bundle of its own: netlify.toml's included_files puts content/legal
 * beside it, and Lambda runs it from the bundle's root, its working directory.
 */
const privacyPolicyInForce = () =>
  policyInForce(
    readPolicySource(path.resolve("content", "legal"), site.legalPages.privacyPolicy.slug),
    log("waitlist"),
  );

/** Netlify's deploy contexts whose deploys are previews of the site, not the site: they keep nothing personal. */
export const isPreview = (deployContext: string | undefined) =>
  deployContext === "deploy-preview" || deployContext === "branch-deploy";

/**
 * Whether the site keeps its waitlist in Netlify Database: NETLIFY_DB_URL set (Netlify sets it once the database is
 * provisioned; `netlify dev` always sets a local one) and Netlify's client installed, which is what turns the database
 * on (Netlify provisions one for a site whose dependencies hold it). Otherwise the site keeps Blobs. The client is
 * not a dependency of this project, so that no site pays for a database nobody asked for.
 */
export async function netlifyDatabaseOn(env: Env): Promise<boolean> {
  return (await databaseClient(env)) !== undefined;
}

async function databaseClient(env: Env): Promise<typeof import("@netlify/database") | undefined> {
  if (!env.NETLIFY_DB_URL) return undefined;
  try {
    return await import("@netlify/database");
  } catch (error) {
    if (["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"].includes((error as { code?: string }).code ?? "")) {
      return undefined;
    }
    throw error;
  }
}

/** Netlify Database's pool, when the site has it (netlifyDatabaseOn). */
async function netlifyDatabasePool(env: Env): Promise<PgPool | undefined> {
  const client = await databaseClient(env);
  if (!client || !env.NETLIFY_DB_URL) return undefined;
  // pg's Pool where the database is a server (locally), Neon's serverless one on Netlify: the same API.
  const { pool } = client.getDatabase({ connectionString: env.NETLIFY_DB_URL });
  // An idle connection the database cut off: dropped by the pool, the next query opens another.
  pool.on("error", (error: Error) => log("waitlist")(`Netlify Database closed a connection: ${error.message}`));
  return pool;
}

/** Netlify applies netlify/database/migrations/ on deploy: a database out of reach, or without them, is said as one. */
async function checkedDatabase(pool: PgPool): Promise<PostgresStore> {
  try {
    await pool.query("SELECT 1 FROM signups LIMIT 0");
  } catch (error) {
    await pool.end().catch(() => {});
    const code = (error as { code?: string }).code;
    throw new StoreError(
      code === "42P01"
        ? "Netlify Database has no waitlist tables: Netlify applies netlify/database/migrations/ on deploy; locally, run `npx netlify database migrations apply`"
        : `Netlify Database cannot be reached: ${(error as Error).message || code || "no reason given"}`,
    );
  }
  return new PostgresStore(pool);
}

/**
 * The notes a site on Netlify Database keeps in its Blobs store that a confirmation is owed and when it is due
 * (mail-owed/<due time>), so that the sweep every five minutes wakes the database only when one is: Netlify bills
 * the database by the hour it is awake, and any query wakes it for at least five minutes (docs/netlify.md).
 */
export function owedMailNotes(clock: () => Date = () => new Date()) {
  const blobs = getStore({ name: `${blobsStoreName}-owed-mail`, consistency: "strong" });
  const stamp = (at: Date) => `mail-owed/${at.toISOString()}-${Math.random().toString(36).slice(2, 10)}`;
  return {
    /** A confirmation failed for now and is due again at `dueAt`. */
    note: async (dueAt: Date) => void (await blobs.set(stamp(dueAt), "")),
    /** The notes due by now: empty, and the database is left asleep. */
    async due(): Promise<string[]> {
      const now = `mail-owed/${clock().toISOString()}`;
      const { blobs: notes } = await blobs.list({ prefix: "mail-owed/" });
      return notes.map(({ key }) => key).filter((key) => key <= now);
    },
    /** The notes a sweep answered: an attempt that failed again noted its own. */
    clear: async (keys: readonly string[]) => void (await Promise.all(keys.map((key) => blobs.delete(key)))),
  };
}

let opened: { env: Env; waitlist: Promise<Waitlist<NetlifyStore>> } | undefined;

/**
 * The waitlist of this function instance, for the environment its request read (`env`: readEnv gives the same
 * object while no value changes, NETLIFY_DB_URL and NETLIFY_BLOBS_CONTEXT included). Only a published deploy opens
 * one: a preview keeps nothing (serve-endpoint.ts).
 */
export function netlifyWaitlist(name: string, env: Env): Promise<Waitlist<NetlifyStore>> {
  if (opened?.env !== env) {
    const config = waitlistConfig(env);
    const open = async () => {
      const pool = await netlifyDatabasePool(env);
      let store: NetlifyStore;
      if (pool) store = await checkedDatabase(pool);
      else {
        const blobs = new BlobsStore(getStore({ name: blobsStoreName, consistency: "strong" }));
        await blobs.noteSigner(config.linkSecret);
        store = blobs;
      }
      const owed = pool ? owedMailNotes() : undefined;
      return createWaitlist({
        store,
        mailer: netlifyMailer(env),
        privacyPolicy: privacyPolicyInForce(),
        source: "netlify",
        ...config,
        // Lambda gives an instance one request at a time, so this counts for the sweep: a backlog of 5,000 at
        // 100 ms a message clears in three sweeps (npm run bench:netlify), where sixteen at once took four.
        sendsAtOnce: netlifySendsAtOnce,
        onOwed: owed && ((dueAt) => owed.note(dueAt).catch((error: Error) => log(name)(error.message))),
        warn: log(name),
        log: log(name),
      });
    };
    opened = { env, waitlist: open() };
    // A failure to open (no Blobs context, a bad variable) is answered now and tried afresh next time.
    const attempt = opened;
    attempt.waitlist.catch(() => {
      if (opened === attempt) opened = undefined;
    });
  }
  return opened.waitlist;
}
