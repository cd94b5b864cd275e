import { createConfirm } from "./endpoints/confirm";
import type { MailLimits } from "../config/mail-providers";
import { createConfirmations, defaultLeaseMs, type ConfirmationOptions } from "./mail/confirmations";
import { createMailPace, unlimitedPace } from "./mail/pace";
import { linkLimiter } from "./endpoints/rate-limits";
import { createLeave } from "./endpoints/leave";
import { createMailEvents, type MailEventsOptions } from "./endpoints/mail-events";
import { mailboxDigest } from "./invites";
import { fingerprintKeyOf } from "./fingerprints";
import { leaverDigest } from "./leavers";
import { newLinkSecret } from "./tokens";
import type { Mailer } from "./mail/mailer";
import { consentRecord, type PolicyInForce } from "./policies";
import { createSignup, type SignupOptions } from "./endpoints/signup";
import type { AfterReply } from "./endpoints/http";
import type { WaitlistSite } from "./site-settings";
import type { FullStore } from "./stores/store";

export interface WaitlistOptions<S extends FullStore = FullStore>
  extends
    Pick<
      ConfirmationOptions,
      "retryDelaysMs" | "leaseMs" | "sweepMs" | "mailboxDailyMails" | "log" | "clock" | "soonWaitMs" | "backlog"
    >,
    Pick<SignupOptions, "source" | "rateLimitPerMinute" | "warn">,
    Pick<MailEventsOptions, "fetch">,
    WaitlistSite {
  /** The deployment's store: SQLite for npm start and gatsby develop, Netlify Blobs on Netlify. */
  store: S;
  mailer: Mailer;
  /** WAITLIST_SECRET; without it, the one the store made and keeps. */
  linkSecret?: string;
  /** Requests to the links in the e-mail (leave and confirm) per client IP per minute. */
  linkRateLimitPerMinute?: number;
  /** The Privacy Policy in force, from the text the adapter read (policies.ts), kept with each consent. */
  privacyPolicy: PolicyInForce;
  /**
   * What the mail provider allows every sender together (config/env.ts, mailLimits); none for the outbox folder. Its
   * schedule is kept in the store, in `paceShards` parts (the Blobs store's: blobsPaceShards).
   */
  mailLimits?: MailLimits;
  paceShards?: number;
  /** The providers' bounce and complaint webhooks' settings (endpoints/mail-events.ts); each route is off without. */
  mailEvents?: MailEventsOptions["settings"];
}

/** What leave links are signed with: WAITLIST_SECRET when set, else the one the store made and keeps. */
export function signingSecret(store: Pick<FullStore, "secret">, configured: string | undefined): Promise<string> {
  return configured ? Promise.resolve(configured) : store.secret("leave", newLinkSecret);
}

/**
 * The waitlist as every deployment runs it (npm start, gatsby develop,
 * Netlify's functions, the tests): the signup endpoint behind POST /, a
 * confirmation e-mail sent after each new signup's reply (runAfterReply; a server starts the
 * confirmations' schedule with confirmations.start(); on Netlify a scheduled
 * function sweeps), the two links that e-mail carries: confirm (double
 * opt-in) and leave, and the routes the mail providers post their bounces and
 * complaints to (mailEvents). Only the store and the HTTP adapter differ
 * between deployments.
 */
export async function createWaitlist<S extends FullStore>(options: WaitlistOptions<S>) {
  const { mailer, siteUrl, contactEmail, warn, clock, linkRateLimitPerMinute = 60 } = options;
  const privacyPolicy = () => options.privacyPolicy.version;
  const consent = (how: "signup" | "confirm") => consentRecord(options.privacyPolicy, how);
  const { store } = options;
  const secret = await signingSecret(store, options.linkSecret);
  // What outlives an entry (who left, a mailbox held) is keyed with the store's own key, read here once: a request, or
  // a rotation of WAITLIST_SECRET, finds it as it is (fingerprints.ts).
  const fingerprintKey = await fingerprintKeyOf(store, secret);
  const pace = options.mailLimits
    ? createMailPace({
        store,
        limits: options.mailLimits,
        shards: options.paceShards,
        clock: () => (clock?.() ?? new Date()).getTime(),
        log: options.log,
      })
    : unlimitedPace;
  const confirmations = createConfirmations({ ...options, store, linkSecret: secret, pace });
  const signup = createSignup({
    ...options,
    store,
    mailboxDigest: (emailKey) => mailboxDigest(secret, emailKey),
    privacyPolicy,
    consent: () => consent("signup"),
    // Its own sender sends at once: the record is made held for it, and needs no claim (a store's write saved).
    claimFor: options.leaseMs ?? defaultLeaseMs,
  });
  // The two links share the secret, the site and the limit (each endpoint its own count).
  const link = { secret, siteUrl, contactEmail, warn };
  const leave = createLeave({
    ...link,
    // Every leave link ever mailed to an address takes off its signup of now, whichever signup it was mailed for.
    remove: async (address, how) => {
      const removed = await store.remove(
        address.key,
        how,
        clock?.() ?? new Date(),
        leaverDigest(fingerprintKey, address.key),
      );
      // "When you leave, we delete your entry at once": the copies of its mail the mailer keeps (the outbox) too.
      if (removed) mailer.forget?.(removed.email);
      return removed !== undefined;
    },
    limiter: linkLimiter(linkRateLimitPerMinute),
  });
  // Bounces and complaints: the fingerprints are keyed as the senders key them, and a complaint leaves as a leave does.
  const mailEvents = createMailEvents({
    settings: options.mailEvents,
    fetch: options.fetch,
    store,
    fingerprintKey,
    forget: mailer.forget,
    clock,
  });
  const confirm = createConfirm({
    ...link,
    store,
    privacyPolicy,
    consent: () => consent("confirm"),
    limiter: linkLimiter(linkRateLimitPerMinute),
    clock,
  });
  /**
   * What a reply names for after it (AfterReply), started by the adapter once the reply is written: on npm start
   * when the response closes, on Netlify through waitUntil. Resolves when the mail is done; never rejects.
   */
  function runAfterReply(work: AfterReply): Promise<void> {
    switch (work.send) {
      case "confirmation":
        return confirmations.sendSoon(work.signup, { claimed: work.claimed });
      case "confirmation again, if due":
        return confirmations.askAgainSoon(work.emailKey);
    }
  }
  return { store, mailer, pace, linkSecret: secret, confirmations, signup, leave, confirm, mailEvents, runAfterReply };
}

export type Waitlist<S extends FullStore = FullStore> = Awaited<ReturnType<typeof createWaitlist<S>>>;
