import { getDeployStore, getStore } from "@netlify/blobs";
import { readEnv, serverConfig, type Env } from "../config/env";
import { BlobsStore, blobsStoreName } from "../waitlist/blobs-store";
import { createMailer, mailConfig, type Mailer } from "../waitlist/mailer";
import { createWaitlist, type Waitlist } from "../waitlist/waitlist";

/*
 * The waitlist as Netlify's functions run it: the shared waitlist over the
 * site's Netlify Blobs store, mail through SMTP_URL. Opened once per function
 * instance and kept while it lives (its rate limits count per instance, on
 * top of Netlify's own per function).
 */

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

let opened: { env: Env; preview: boolean; waitlist: Promise<Waitlist<BlobsStore>> } | undefined;

/** Netlify's deploy contexts whose deploys are previews of the site, not the site. */
const previewContexts = new Set(["deploy-preview", "branch-deploy"]);

/**
 * The waitlist of this function instance, for the environment as it is now
 * (readEnv gives the same object while no value changes, NETLIFY_BLOBS_CONTEXT included).
 *
 * A deploy preview or branch deploy (`deployContext`, Netlify's
 * context.deploy.context) keeps its signups in a store of its own deploy,
 * never in the site's: a preview shared for review never writes into the
 * production list, and its signups are marked as a preview's.
 */
export function netlifyWaitlist(name: string, deployContext = "production"): Promise<Waitlist<BlobsStore>> {
  const env = readEnv();
  const preview = previewContexts.has(deployContext);
  if (opened?.env !== env || opened.preview !== preview) {
    const config = serverConfig(env);
    const options = { name: blobsStoreName, consistency: "strong" } as const;
    const store = new BlobsStore(preview ? getDeployStore(options) : getStore(options));
    opened = {
      env,
      preview,
      waitlist: store.noteSigner(config.leaveSecret).then(() =>
        createWaitlist({
          store,
          mailer: netlifyMailer(env),
          source: preview ? "netlify-preview" : "netlify",
          rateLimitPerMinute: config.rateLimitPerMinute,
          leaveRateLimitPerMinute: config.leaveRateLimitPerMinute,
          leaveSecret: config.leaveSecret,
          leaseMs: config.confirmationLeaseMs,
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

/** Resolves once every confirmation this instance has started is done (sent, or left owed for the sweep). */
export async function settled(waitlist: Waitlist): Promise<void> {
  // sendSoon starts its attempt on the next turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  await waitlist.confirmations.idle();
}
