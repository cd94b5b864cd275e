import type http from "node:http";
import type { AddressInfo } from "node:net";
import { mailConfig, serverConfig, waitlistConfig, type Env, type EnvSource, type ServerConfig } from "../config/env";
import { projectFolders } from "../config/folders";
import { readPolicySource, policyInForce } from "../waitlist/policies";
import { site } from "../config/site";
import { createWaitlist, type Waitlist, type WaitlistOptions } from "../waitlist/create-waitlist";
import type { SweepResult } from "../waitlist/mail/confirmations";
import { createMailer, type MailConfig } from "../waitlist/mail/mailer";
import { pruneHourly } from "../waitlist/prune";
import { eventsReported } from "../waitlist/reports/mail-figures";
import { openPostgresStore } from "../waitlist/stores/postgres-store";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import type { FullStore } from "../waitlist/stores/store";
import { createApp } from "./app";
import { createHttpServer, type ServerLimits } from "./http-server";
import { listeningSiteUrl } from "./listening-origins";
import type { SignupSource } from "../waitlist/signup-life/types";

/*
 * npm start's composition, in one place: the waitlist over its store (one SQLite file, or Postgres with
 * DATABASE_URL) and its mailer (SMTP_URL, or the outbox), behind the site's HTTP server. serve.ts runs it from the
 * environment; gatsby develop opens the same waitlist (develop.ts); the tests start it with plain values.
 */

/** Everything the waitlist of npm start and gatsby develop is made of. */
export interface WaitlistSettings extends Omit<WaitlistOptions, "store" | "mailer" | "privacyPolicy"> {
  /** The SQLite file; unused with databaseUrl. */
  dbFile: string;
  /** A Postgres database instead of dbFile, migrated from `migrations` on opening. */
  databaseUrl?: string;
  migrations: string;
  /** Where the policies are: the Privacy Policy in force is kept with each consent. */
  legalFolder: string;
  mail: MailConfig;
  /** Who gets the founders' daily digest (FOUNDERS_DIGEST_TO, waitlist/reports/daily-digest.ts); none: no digest. */
  foundersDigestTo?: readonly string[];
}

/** Everything npm start is made of: where it listens, what it serves, its waitlist. */
export interface ServerSettings extends Pick<ServerConfig, "host" | "port" | "publicDir" | "trustProxy"> {
  /** No siteUrl (SITE_URL not set): the links in e-mails point at the address the server listens on. */
  waitlist: Omit<WaitlistSettings, "siteUrl"> & Partial<Pick<WaitlistSettings, "siteUrl">>;
  /** The HTTP server's limits (http-server.ts); its defaults otherwise. */
  limits?: ServerLimits;
  /** The request log's lines (stdout by default). */
  log?: (line: string) => void;
  /** Start the schedules: the confirmations still owed, and the hourly retention. npm start does. */
  schedule?: boolean;
}

/**
 * The settings npm start (source "start") and gatsby develop ("develop") read from the environment, `raw` as it was
 * set (whether SITE_URL is).
 */
export function settingsFromEnv(env: Env, source: SignupSource, raw: EnvSource = process.env): ServerSettings {
  const { host, port, publicDir, trustProxy, dbFile, databaseUrl, siteUrl } = serverConfig(env, raw);
  const { migrations, legal } = projectFolders;
  const waitlist = { ...waitlistConfig(env), siteUrl, source, dbFile, databaseUrl, migrations, legalFolder: legal };
  return { host, port, publicDir, trustProxy, waitlist: { ...waitlist, mail: mailConfig(env) }, schedule: true };
}

/** The waitlist over its store and mailer. */
export async function openWaitlist({
  dbFile,
  databaseUrl,
  migrations,
  legalFolder,
  mail,
  foundersDigestTo: _digest,
  ...options
}: WaitlistSettings) {
  const warn = options.warn ?? ((line: string) => console.error(line));
  const store: FullStore = databaseUrl
    ? await openPostgresStore(databaseUrl, { migrations, warn })
    : new SqliteStore(dbFile);
  const privacyPolicy = policyInForce(readPolicySource(legalFolder, site.legalPages.privacyPolicy.slug), warn);
  return createWaitlist({ ...options, store, mailer: createMailer(mail), privacyPolicy });
}

/**
 * The waitlist's schedules, the same under npm start and gatsby develop: whatever confirmation is owed (from a
 * previous run, a crash, a mail server that was down), now and every sweep; and the hourly retention pass, which
 * keeps the Privacy Policy's promise that addresses never confirmed go after the days it names (with the founders'
 * daily digest, when FOUNDERS_DIGEST_TO names anyone). Stop it before closing the waitlist.
 */
export function startSchedules(
  { confirmations, store, mailer, pace }: Waitlist,
  {
    foundersDigestTo: to,
    siteUrl,
    contactEmail,
    mailEvents,
  }: Pick<WaitlistSettings, "foundersDigestTo" | "siteUrl" | "contactEmail"> &
    Partial<Pick<WaitlistSettings, "mailEvents">>,
): { firstSweep: Promise<SweepResult>; firstPass: Promise<void>; stop: () => void } {
  const firstSweep = confirmations.start();
  const hourly = pruneHourly(store, {
    forget: mailer.forget,
    digest:
      to && to.length > 0
        ? { mailer, to, site: { siteUrl, contactEmail }, pace, reported: eventsReported(mailEvents ?? {}) }
        : undefined,
  });
  return { firstSweep, firstPass: hourly.first, stop: hourly.stop };
}

export interface RunningServer {
  /** http://host:port, with the port it got (port 0: any free one). */
  url: string;
  /** Where the links in e-mails point: SITE_URL, else the address it listens on (listening-origins.ts). */
  siteUrl: string;
  server: http.Server;
  waitlist: Waitlist;
  /** With `schedule`, the first sweep of the confirmations still owed from before, and the hourly pass's first run. */
  firstSweep?: Promise<SweepResult>;
  firstPass?: Promise<void>;
  /** Stops taking requests, lets the sends under way finish, closes the store: what is owed stays for next time. */
  close(): Promise<void>;
}

/** The site and its waitlist on one port, listening when it resolves; rejects when the port cannot be had. */
export async function startServer(settings: ServerSettings): Promise<RunningServer> {
  const { host, publicDir, trustProxy, log, limits } = settings;
  // It listens before the waitlist opens, for without SITE_URL the links need the port it got (PORT=0: any free
  // one). A request that comes meanwhile waits for the app; if the waitlist cannot open, its connection is closed.
  let serveWith!: (app: http.RequestListener) => void;
  const app = new Promise<http.RequestListener>((resolve) => (serveWith = resolve));
  // Behind proxies of yours every connection comes from them: the per-address cap is theirs to keep.
  const server = createHttpServer((req, res) => void app.then((serve) => serve(req, res)), {
    limits,
    countByAddress: trustProxy === 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const siteUrl = settings.waitlist.siteUrl ?? listeningSiteUrl(host, port);
  let waitlist: Waitlist;
  try {
    waitlist = await openWaitlist({ ...settings.waitlist, siteUrl });
  } catch (error) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  serveWith(createApp({ publicDir, endpoints: waitlist, trustProxy, log }));
  const { confirmations, store, mailer } = waitlist;
  const schedules = settings.schedule ? startSchedules(waitlist, { ...settings.waitlist, siteUrl }) : undefined;
  const stopPruning = schedules?.stop ?? (() => {});
  const firstSweep = schedules?.firstSweep;
  const firstPass = schedules?.firstPass;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    siteUrl,
    server,
    waitlist,
    firstSweep,
    firstPass,
    async close() {
      stopPruning();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      // Sends under way finish; the rest stays pending for the next start.
      await confirmations.close();
      mailer.close();
      // Its connections closed, their leases given back: a server started in its place need not wait them out.
      await waitlist.pace.release().catch(() => {});
      await store.close();
    },
  };
}
