import { getDeployStore, getStore } from "@netlify/blobs";
import { getDatabase } from "@netlify/database";
import path from "node:path";
import { readPolicySource } from "../config/legal-rules";
import { site } from "../config/site";
import { policyInForce } from "../waitlist/policies";
import type { Pool } from "pg";
import { mailConfig, waitlistConfig, type Env } from "../config/env";
import { BlobsStore, blobsStoreName } from "../waitlist/stores/blobs-store";
import { createMailer, type Mailer } from "../waitlist/mail/mailer";
import { PostgresStore } from "../waitlist/stores/postgres-store";
import { StoreError } from "../waitlist/stores/store";
import { createWaitlist, type Waitlist } from "../waitlist/create-waitlist";

/*
 * The waitlist as Netlify's functions run it: the shared waitlist over the
 * site's Netlify Database when it has one (NETLIFY_DB_URL), else over its
 * Netlify Blobs store; mail through SMTP_URL. Opened once per function
 * instance and kept while it lives (its rate limits count per instance, on
 * top of Netlify's own per function).
 */

/** The store the functions keep the waitlist in: Netlify Database's, or the Blobs store of a site without one. */
export type NetlifyStore = PostgresStore | BlobsStore;

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

let opened: { env: Env; preview: boolean; waitlist: Promise<Waitlist<NetlifyStore>> } | undefined;

/**
 * The Privacy Policy in force. A function is a bundle of its own: netlify.toml's included_files puts content/legal
 * beside it, and Lambda runs it from the bundle's root, its working directory.
 */
const privacyPolicyInForce = () =>
  policyInForce(
    readPolicySource(path.resolve("content", "legal"), site.legalPages.privacyPolicy.slug),
    log("waitlist"),
  );

/** Netlify's deploy contexts whose deploys are previews of the site, not the site. */
const previewContexts = new Set(["deploy-preview", "branch-deploy"]);

/**
 * The store, for the environment as it is now.
 *
 * - With Netlify Database: its pool, shared by the instance's requests. On
 *   Netlify each deploy preview gets a branch of the database of its own,
 *   and NETLIFY_DB_URL names it, so a preview never writes into production's
 *   list. Netlify applies netlify/database/migrations/ on deploy (and
 *   `netlify database migrations apply` locally), so the functions never
 *   change the schema.
 * - Without: the Blobs store, as this site kept its list before; a deploy
 *   preview or branch deploy keeps its signups in a store of its own deploy.
 *   `npm run waitlist -- copy-to-database` moves such a list across.
 */
async function netlifyStore(env: Env, preview: boolean, linkSecret: string | undefined): Promise<NetlifyStore> {
  if (env.NETLIFY_DB_URL) {
    // pg's Pool where the database is a server (locally), Neon's serverless one on Netlify: the same API.
    const pool = getDatabase({ connectionString: env.NETLIFY_DB_URL }).pool as Pool;
    // An idle connection the database cut off: dropped by the pool, the next query opens another.
    pool.on("error", (error: Error) => log("waitlist")(`Netlify Database closed a connection: ${error.message}`));
    // Once per instance: a database out of reach, or without the schema, is a setup problem, said as one.
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
  const options = { name: blobsStoreName, consistency: "strong" } as const;
  const store = new BlobsStore(preview ? getDeployStore(options) : getStore(options));
  await store.noteSigner(linkSecret);
  return store;
}

/**
 * The waitlist of this function instance, for the environment its request
 * read (`env`: readEnv gives the same object while no value changes,
 * NETLIFY_DB_URL and NETLIFY_BLOBS_CONTEXT included). A deploy preview or
 * branch deploy (`deployContext`, Netlify's context.deploy.context) marks its
 * signups as a preview's.
 */
export function netlifyWaitlist(name: string, env: Env, deployContext = "production"): Promise<Waitlist<NetlifyStore>> {
  const preview = previewContexts.has(deployContext);
  if (opened?.env !== env || opened.preview !== preview) {
    const config = waitlistConfig(env);
    opened = {
      env,
      preview,
      waitlist: netlifyStore(env, preview, config.linkSecret).then((store) =>
        createWaitlist({
          store,
          privacyPolicy: privacyPolicyInForce(),
          mailer: netlifyMailer(env),
          source: preview ? "netlify-preview" : "netlify",
          ...config,
          // Lambda gives an instance one request at a time, so this counts for the sweep: a backlog of 5,000 at
          // 100 ms a message clears in three sweeps (npm run bench:netlify), where sixteen at once took four.
          sendsAtOnce: netlifySendsAtOnce,
          warn: log(name),
          log: log(name),
        }),
      ),
    };
    // A failure to open (no Blobs context, a bad variable) is answered now and tried afresh next time.
    const attempt = opened;
    attempt.waitlist.catch(() => {
      if (opened === attempt) opened = undefined;
    });
  }
  return opened.waitlist;
}
