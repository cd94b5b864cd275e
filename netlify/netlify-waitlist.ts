import path from "node:path";
import { getStore } from "@netlify/blobs";
import { mailConfig, waitlistConfig, type Env } from "../config/env";
import { readPolicySource, policyInForce } from "../waitlist/policies";
import { site } from "../config/site";
import { createWaitlist, type Waitlist } from "../waitlist/create-waitlist";
import { noteSigner } from "../waitlist/leave-signer";
import { createMailer, type Mailer } from "../waitlist/mail/mailer";
import { blobsPaceShards, blobsStore, blobsStoreName, type BlobsStore } from "../waitlist/stores/blobs-store";
import { askForDrain } from "./drain-start";
import { limitedStore } from "./run-limit";

/*
 * The waitlist as Netlify's functions run it: the shared waitlist over the site's Netlify Blobs store, which every
 * site has and which costs next to nothing at rest (docs/netlify.md says why not Netlify Database). Mail goes through
 * SMTP_URL. Opened once per function instance and kept while it lives (its rate limits count per instance, on top of
 * Netlify's own).
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
  // A lease's connection closed as soon as it has no message: the instance is frozen once its work is done, and a
  // socket left open would outlive its lease (waitlist/mail/pace-leases.ts).
  if (config.smtpUrl) return createMailer({ ...config, idleMs: 0 });
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

let opened: { env: Env; waitlist: Promise<Waitlist<BlobsStore>> } | undefined;
/** A drain of the mail owed, or the running one told to start the next (drain-start.ts). */
async function backlog(env: Env, name: string): Promise<void> {
  const { store, linkSecret } = await netlifyWaitlist(name, env);
  await askForDrain(store, env, linkSecret, log(name));
}

/**
 * The waitlist of this function instance, for the environment its request read (`env`: readEnv gives the same
 * object while no value changes, NETLIFY_BLOBS_CONTEXT included). Only a published deploy opens one: a preview keeps
 * nothing (serve-endpoint.ts).
 */
export function netlifyWaitlist(name: string, env: Env): Promise<Waitlist<BlobsStore>> {
  if (opened?.env !== env) {
    const config = waitlistConfig(env);
    const open = async () => {
      // Past a scheduled run's hard stop, its pruning and ledger start no operation (run-limit.ts).
      const store = blobsStore(limitedStore(getStore({ name: blobsStoreName, consistency: "strong" })));
      await noteSigner(store.blobs, config.linkSecret);
      return createWaitlist({
        store,
        mailer: netlifyMailer(env),
        privacyPolicy: privacyPolicyInForce(),
        source: "netlify",
        ...config,
        // Every instance, the scheduled runs and the founders' commands keep one pace, in the store's shards. A
        // signup's own e-mail waits two seconds at most for its start (a function waiting is billed); past that, in
        // a burst beyond the provider's rate, a drain with the time sends it (drain.ts), started once a while here.
        paceShards: blobsPaceShards,
        soonWaitMs: 2_000,
        backlog: () => backlog(env, name),
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
