import { mailConfig, serverConfig, waitlistConfig, type Env } from "../config/env";
import { createMailer, type MailConfig } from "../waitlist/mail/mailer";
import { openPostgresStore } from "../waitlist/stores/postgres-store";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import type { FullStore, SignupSource } from "../waitlist/stores/store";
import { createWaitlist, type WaitlistOptions } from "../waitlist/create-waitlist";

/**
 * The waitlist of npm start, gatsby develop and the test harness: the
 * shared waitlist over one SQLite file, or Postgres when DATABASE_URL is set,
 * mail through SMTP_URL or the outbox.
 */
export async function openSqliteWaitlist({
  dbFile,
  databaseUrl,
  mail,
  ...options
}: Omit<WaitlistOptions, "store" | "mailer"> & { dbFile: string; databaseUrl?: string; mail: MailConfig }) {
  const store: FullStore = databaseUrl
    ? await openPostgresStore(databaseUrl, { warn: options.warn })
    : new SqliteStore(dbFile);
  return createWaitlist({ ...options, store, mailer: createMailer(mail) });
}

/** The settings npm start and gatsby develop take from the environment (config/env.ts), read once at start. */
export function waitlistSettings(env: Env, source: SignupSource) {
  const { dbFile, databaseUrl } = serverConfig(env);
  return { ...waitlistConfig(env), dbFile, databaseUrl, mail: mailConfig(env), source };
}
