import { z } from "zod";
import { mailProviders, type MailLimits } from "./mail-providers";
import { site } from "./site";
import {
  netlifyHostingProvider,
  placeholderHostingProvider,
  renamedVariables,
  retiredVariables,
  variables,
  type Variable,
} from "./variables";

export {
  netlifyHostingProvider,
  placeholderController,
  placeholderHostingProvider,
  placeholderVerificationToken,
} from "./variables";

/*
 * The one place the environment is read: the build, the server, the CLI and
 * the Netlify functions call readEnv() once and pass what they need on.
 * Every variable is declared in variables.ts, with its schema, its default
 * and what it is for.
 */

/** A bad value: the message is one line that names the variable and says what it expects. */
export class ConfigError extends Error {}

/** Where the values come from: process.env, or a test's own object. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

export type EnvName = keyof typeof variables;

const envSchema = z.object(
  Object.fromEntries(Object.entries(variables).map(([name, variable]) => [name, variable.schema])) as {
    [Name in EnvName]: (typeof variables)[Name]["schema"];
  },
);

/** Every setting, checked and with its default. */
export type Env = z.output<typeof envSchema>;

/** The configuration table of docs/configuration.md, one row per variable, in order. */
export const configurationRows = Object.entries(variables).map(([name, variable]) => ({
  name,
  defaultText: variable.defaultText,
  usedFor: variable.usedFor,
}));

function problemLine(name: EnvName, raw: string | undefined, setAs: string = name): string {
  const variable: Variable = variables[name];
  const got = variable.secret ? `got ${raw?.trim().length ?? 0} characters` : `got ${JSON.stringify(raw)}`;
  return `${setAs} must be ${variable.expected} (${got})${variable.hint ? `; ${variable.hint}` : "."}`;
}

const warned = new Set<string>();

/** Says once per process that a variable has a new name (Node prints it to stderr as a DeprecationWarning). */
function warnRenamed(old: string, current: string): void {
  if (warned.has(old)) return;
  warned.add(old);
  process.emitWarning(`${old} is now called ${current}; the old name still works, but set the new one.`, {
    type: "DeprecationWarning",
    code: old,
  });
}

/** The values last checked and their result. */
let last: { key: string; env: Env } | undefined;

/**
 * The environment, checked against the schema. A bad value is a ConfigError
 * whose message is one line naming the variable; entry points print it and stop.
 * An empty value counts as not set.
 */
export function readEnv(source: EnvSource = process.env): Env {
  const values: Record<string, string | undefined> = {};
  for (const name of Object.keys(variables)) {
    const value = source[name];
    values[name] = value?.trim() === "" ? undefined : value;
  }
  /** The variables set by an old name, and that name. */
  const oldNames = new Map<string, string>();
  for (const [old, current] of Object.entries(renamedVariables)) {
    const value = source[old];
    if (values[current] !== undefined || value === undefined || value.trim() === "") continue;
    values[current] = value;
    oldNames.set(current, old);
  }
  // A function reads it per request: the same values are checked once.
  const key = JSON.stringify(values);
  if (last?.key === key) return last.env;
  const result = envSchema.safeParse(values);
  if (result.success) {
    for (const [current, old] of oldNames) warnRenamed(old, current);
    last = { key, env: result.data };
    return result.data;
  }
  const name = result.error.issues[0]?.path[0] as EnvName;
  throw new ConfigError(problemLine(name, values[name], oldNames.get(name)));
}

/** What to do about each variable set in `source` that nothing reads any more (variables.ts, retiredVariables). */
export function retiredVariablesSet(source: EnvSource = process.env): string[] {
  return Object.entries(retiredVariables).flatMap(([name, whatToDo]) => {
    const value = source[name]?.trim();
    return value ? [whatToDo(value)] : [];
  });
}

/** A host name only this machine answers: localhost, a name under .localhost, the loopback addresses. */
export function isLocalHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "[::1]" ||
    /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name)
  );
}

/**
 * Why a build is for a public site, which must not ship a placeholder (the controller, the host, the verification
 * token): a Netlify production deploy, or a SITE_URL set to an address that is not local (a self-hosted site).
 * Undefined for a local build, SITE_URL unset included (`npm install && npm start` on a fresh machine), and for a
 * Netlify preview. `source` tells a SITE_URL that was set from the default.
 */
export function publicSiteReason(env: Env, source: EnvSource = process.env): string | undefined {
  if (env.CONTEXT === "production") return "a Netlify production deploy (CONTEXT=production)";
  const set = source.SITE_URL?.trim();
  if (set && !isLocalHost(new URL(env.SITE_URL).hostname)) return `SITE_URL is ${env.SITE_URL}, not a local address`;
  return undefined;
}

/**
 * The settings pages show, named as the pages read them
 * (use-site-settings.ts): gatsby-config puts them in siteMetadata, and the
 * build's steps and the content check read them here.
 */
export function siteSettings(env: Env) {
  return {
    siteUrl: env.SITE_URL,
    contactEmail: env.CONTACT_EMAIL,
    siteVerificationToken: env.TIKTOK_SITE_VERIFICATION,
    controllerName: env.CONTROLLER_NAME,
    controllerAddress: env.CONTROLLER_ADDRESS,
    /** Who hosts the site: HOSTING_PROVIDER, else Netlify on a build there, else a placeholder. */
    hostingProvider: env.HOSTING_PROVIDER ?? (env.NETLIFY ? netlifyHostingProvider : placeholderHostingProvider),
  };
}

export interface ServerConfig {
  host: string;
  port: number;
  /** SQLite file of the waitlist. */
  dbFile: string;
  /** A Postgres database for the waitlist instead of dbFile. */
  databaseUrl: string | undefined;
  /** The built site. */
  publicDir: string;
  /**
   * How many proxies of yours stand in front of the server. 0: none, the
   * client is the socket's peer. 1: one, the client is the address that proxy
   * saw, the last in X-Forwarded-For; anything a client wrote before it is ignored.
   */
  trustProxy: number;
  /**
   * SITE_URL as set, undefined when it is not: without it npm start's links point at the address it listens on, the
   * server that took the signup, not at SITE_URL's default (the production site).
   */
  siteUrl: string | undefined;
}

/**
 * Settings of npm start's server: where it listens, what it serves, where it keeps the waitlist. `source` tells a
 * SITE_URL that was set from the default.
 */
export function serverConfig(env: Env, source: EnvSource = process.env): ServerConfig {
  return {
    siteUrl: source.SITE_URL?.trim() ? env.SITE_URL : undefined,
    host: env.HOST,
    port: env.PORT,
    dbFile: env.WAITLIST_DB,
    databaseUrl: env.DATABASE_URL,
    publicDir: env.PUBLIC_DIR,
    trustProxy: env.TRUST_PROXY,
  };
}

/**
 * What every deployment tells the waitlist (waitlist/create-waitlist.ts's
 * options), from the environment: npm start, gatsby develop, the functions
 * and the CLI pass this in, so the waitlist never reads the environment.
 */
export function waitlistConfig(env: Env) {
  return {
    siteUrl: env.SITE_URL,
    contactEmail: env.CONTACT_EMAIL,
    /** Signups accepted per client IP per minute. */
    rateLimitPerMinute: env.WAITLIST_RATE_LIMIT,
    /** Confirmation e-mails one mailbox gets per UTC day at most, however spelled. */
    mailboxDailyMails: env.WAITLIST_MAILBOX_DAILY_MAILS,
    /** Requests to the links in the e-mail per client IP per minute: more than signups (one-click POSTs). */
    linkRateLimitPerMinute: env.WAITLIST_LINK_RATE_LIMIT,
    /** WAITLIST_SECRET, which seals the links; without it the store makes and keeps one. */
    linkSecret: env.WAITLIST_SECRET,
    /** How long one sender may hold an owed confirmation before another may take it over (a crashed one's). */
    leaseMs: env.CONFIRMATION_LEASE_SECONDS * 1000,
    /** How often the running server looks for owed confirmations: expired holds, failures due a retry. */
    sweepMs: env.CONFIRMATION_SWEEP_SECONDS * 1000,
    /** What the mail provider allows every sender together (MAIL_PROVIDER and its overrides). */
    mailLimits: mailLimits(env),
    /** Who gets the founders' daily digest (FOUNDERS_DIGEST_TO); none: no digest. */
    foundersDigestTo: env.FOUNDERS_DIGEST_TO,
    /** The providers' bounce and complaint webhooks: each route answers 404 while its setting is not set. */
    mailEvents: {
      sesTopicArns: env.SES_SNS_TOPIC_ARN.length > 0 ? env.SES_SNS_TOPIC_ARN : undefined,
      resendSecret: env.RESEND_WEBHOOK_SECRET,
      postmarkAuth: env.POSTMARK_WEBHOOK_AUTH,
    },
  };
}

/** Where every e-mail goes (waitlist/mail/mailer.ts's MailConfig): SMTP_URL, MAIL_FROM and OUTBOX_DIR. */
export function mailConfig(env: Env) {
  return {
    smtpUrl: env.SMTP_URL,
    from: env.MAIL_FROM ?? `"${site.name}" <${env.CONTACT_EMAIL}>`,
    outboxDir: env.OUTBOX_DIR,
    connections: mailLimits(env)?.connections,
  };
}

/**
 * What the mail provider allows every sender together: MAIL_PROVIDER's figures, each overridden by the account's own
 * (MAIL_RATE_PER_SECOND, MAIL_CONNECTIONS, MAIL_DAILY_LIMIT). None without SMTP_URL: the mail goes to files.
 */
export function mailLimits(env: Env): (MailLimits & { provider: string }) | undefined {
  if (!env.SMTP_URL) return undefined;
  const preset = mailProviders[env.MAIL_PROVIDER];
  return {
    provider: preset.label,
    ratePerSecond: env.MAIL_RATE_PER_SECOND ?? preset.ratePerSecond,
    connections: env.MAIL_CONNECTIONS ?? preset.connections,
    dailyLimit: env.MAIL_DAILY_LIMIT === undefined ? preset.dailyLimit : env.MAIL_DAILY_LIMIT,
  };
}
