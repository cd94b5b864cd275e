import type Database from "better-sqlite3";
import { undatedBounce } from "../signup-life/rules";
import { StoreError } from "./store";

/**
 * A row's state, from the times that said it before migration 17 (Postgres's 0012 says the same; the Blobs store reads
 * a record written before the field alike: blobs/records.ts).
 */
export const stateFromTimes = `UPDATE signups SET state = CASE
     WHEN confirmed_at IS NOT NULL THEN 'confirmed'
     WHEN confirmation_sent_at IS NOT NULL THEN 'sent'
     WHEN confirmation_failed_at IS NOT NULL AND confirmation_capped THEN 'capped'
     WHEN confirmation_failed_at IS NOT NULL THEN 'refused'
     WHEN confirmation_claimed_until IS NOT NULL THEN 'sending'
     ELSE 'owed' END;`;

/**
 * SQLite changes a CHECK by copying its table: `table` made anew as `definition` says, every column it names copied
 * with the rows (ids kept), then the indexes the old table took with it made again.
 */
const rebuilt = (table: string, definition: string, indexes: string) => {
  const columns = [...definition.matchAll(/(?:^|,)\s*([a-z_]+) [A-Z]/g)].map(([, name]) => name).join(", ");
  return `CREATE TABLE ${table}_new (${definition});
   INSERT INTO ${table}_new (${columns}) SELECT ${columns} FROM ${table};
   DROP TABLE ${table};
   ALTER TABLE ${table}_new RENAME TO ${table};
   ${indexes}`;
};
/** The departures table from migration 11's digest on, with the kinds of departure it takes. */
const departures = (kinds: string) =>
  rebuilt(
    "departures",
    `id INTEGER PRIMARY KEY, left_at TEXT NOT NULL, how TEXT NOT NULL CHECK (how IN (${kinds})), digest TEXT`,
    "CREATE INDEX departures_digest ON departures (left_at) WHERE digest IS NOT NULL;",
  );
const departureKinds18 = "'link', 'one-click', 'operator', 'pruned', 'complaint'";

/** Each entry migrates the schema one version up; `PRAGMA user_version` counts them. Append only: never wiped. */
export const migrations: readonly string[] = [
  `CREATE TABLE signups (
     id INTEGER PRIMARY KEY,
     email TEXT NOT NULL,
     email_key TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     source TEXT NOT NULL CHECK (source IN ('develop', 'start'))
   )`,
  // 2: the confirmation e-mail. Rows from version 1 are owed one.
  `ALTER TABLE signups ADD COLUMN confirmation_sent_at TEXT;
   ALTER TABLE signups ADD COLUMN confirmation_attempts INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE signups ADD COLUMN confirmation_claimed_until TEXT;
   ALTER TABLE signups ADD COLUMN confirmation_error TEXT;
   CREATE INDEX signups_confirmation_pending ON signups (id) WHERE confirmation_sent_at IS NULL;`,
  // 3: retries on a schedule, addresses refused for good, and repeats counted (as long a write as a new signup).
  `ALTER TABLE signups ADD COLUMN confirmation_next_at TEXT;
   ALTER TABLE signups ADD COLUMN confirmation_failed_at TEXT;
   ALTER TABLE signups ADD COLUMN repeat_signups INTEGER NOT NULL DEFAULT 0;`,
  // 4: the leave link's secret (unless WAITLIST_SECRET is set), and when people left and how: never who.
  `CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE departures (
     id INTEGER PRIMARY KEY,
     left_at TEXT NOT NULL,
     how TEXT NOT NULL CHECK (how IN ('link', 'one-click', 'operator'))
   );`,
  // 5: where a signup came from (attribution.ts), first touch.
  `ALTER TABLE signups ADD COLUMN utm_source TEXT;
   ALTER TABLE signups ADD COLUMN utm_medium TEXT;
   ALTER TABLE signups ADD COLUMN utm_campaign TEXT;
   ALTER TABLE signups ADD COLUMN utm_content TEXT;
   ALTER TABLE signups ADD COLUMN utm_term TEXT;
   ALTER TABLE signups ADD COLUMN ref TEXT;
   ALTER TABLE signups ADD COLUMN landing_path TEXT;`,
  // 6: double opt-in and consent; rows from before never asked until a founder asks. SQLite copies a table for a CHECK.
  `ALTER TABLE signups ADD COLUMN confirmed_at TEXT;
   ALTER TABLE signups ADD COLUMN opt_in_since TEXT;
   ALTER TABLE signups ADD COLUMN privacy_policy_at_signup TEXT;
   ALTER TABLE signups ADD COLUMN privacy_policy_at_confirm TEXT;
   ${rebuilt(
     "departures",
     "id INTEGER PRIMARY KEY, left_at TEXT NOT NULL, how TEXT NOT NULL CHECK (how IN ('link', 'one-click', 'operator', 'pruned'))",
     "",
   )}
   CREATE INDEX signups_unconfirmed ON signups (opt_in_since) WHERE confirmed_at IS NULL AND opt_in_since IS NOT NULL;`,
  // 7: the record of consent names the statement's version and the policy's text (policies.ts).
  `ALTER TABLE signups ADD COLUMN consent_at_signup TEXT;
   ALTER TABLE signups ADD COLUMN consent_at_confirm TEXT;`,
  // 8: a repeat signup asks again (asked_at), never moving opt_in_since, which the retention counts from.
  `ALTER TABLE signups ADD COLUMN asked_at TEXT;`,
  // 9: confirmation e-mails per mailbox per UTC day, for the daily cap (mailbox.ts): never an address.
  `CREATE TABLE mailbox_mail (counter TEXT NOT NULL, day TEXT NOT NULL, mails INTEGER NOT NULL,
                              PRIMARY KEY (counter, day));
   CREATE INDEX mailbox_mail_day ON mailbox_mail (day);`,
  // 10: a confirmation the daily cap held back, told apart from one the mail server refused.
  `ALTER TABLE signups ADD COLUMN confirmation_capped INTEGER NOT NULL DEFAULT 0;`,
  // 11: a keyed digest of who left, kept for a while to take them off the launch mailing tool (leavers.ts).
  `ALTER TABLE departures ADD COLUMN digest TEXT;
   CREATE INDEX departures_digest ON departures (left_at) WHERE digest IS NOT NULL;`,
  // 12: invites (invites.ts): a signup's own code from its first confirmation, the code it came by, its mailbox.
  `ALTER TABLE signups ADD COLUMN invite_code TEXT;
   ALTER TABLE signups ADD COLUMN invited_by TEXT;
   ALTER TABLE signups ADD COLUMN mailbox TEXT;
   CREATE UNIQUE INDEX signups_invite_code ON signups (invite_code) WHERE invite_code IS NOT NULL;
   CREATE INDEX signups_invited_by ON signups (invited_by, mailbox) WHERE invited_by IS NOT NULL;`,
  // 13: the policy-change announcements a signup was sent (announce-policy-change), so none goes to it twice.
  `ALTER TABLE signups ADD COLUMN announcements TEXT;`,
  // 14: the version a change compares and bumps (record-keeper.ts); the owed and retention indexes as Postgres's.
  `ALTER TABLE signups ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
   DROP INDEX signups_confirmation_pending;
   CREATE INDEX signups_confirmation_owed ON signups (created_at, id)
     WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL;
   DROP INDEX signups_unconfirmed;
   CREATE INDEX signups_unconfirmed ON signups (opt_in_since, id) WHERE confirmed_at IS NULL AND opt_in_since IS NOT NULL;`,
  // 15: waves (cli/commands/let-in.ts): the wave a signup was let in with, when, and its "You're in" e-mail's state.
  `ALTER TABLE signups ADD COLUMN wave INTEGER;
   ALTER TABLE signups ADD COLUMN let_in_at TEXT;
   ALTER TABLE signups ADD COLUMN let_in_mail TEXT
     CHECK (let_in_mail IN ('owed', 'sending', 'sent', 'refused', 'launch-tool'));`,
  // 16: an objection to being ranked by the creators one invited (object-to-ranking): a wave by invites counts none.
  `ALTER TABLE signups ADD COLUMN ranking_objected_at TEXT;`,
  // 17: where a signup stands, one field (signup-life's SignupState), read from the times that said it before; the
  // owed and retention indexes over it; the mailbox's digest named for what it holds. The capped flag is a state now.
  `ALTER TABLE signups ADD COLUMN state TEXT NOT NULL DEFAULT 'owed'
     CHECK (state IN ('owed', 'sending', 'sent', 'refused', 'capped', 'confirmed'));
   ${stateFromTimes}
   ALTER TABLE signups DROP COLUMN confirmation_capped;
   ALTER TABLE signups RENAME COLUMN mailbox TO mailbox_digest;
   DROP INDEX signups_confirmation_owed;
   CREATE INDEX signups_owed ON signups (created_at, id) WHERE state IN ('owed', 'sending');
   DROP INDEX signups_unconfirmed;
   CREATE INDEX signups_unconfirmed ON signups (opt_in_since, id)
     WHERE state IN ('owed', 'sending', 'sent', 'refused', 'capped') AND opt_in_since IS NOT NULL;`,
  // 18: a member whose mail bounced for good (undeliverable), a departure by complaint, the fingerprints the mail must
  // never reach again, and each day's mail figures. SQLite changes a CHECK by copying its table, rows and ids kept.
  `${rebuilt(
    "signups",
    `id INTEGER PRIMARY KEY, email TEXT NOT NULL, email_key TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
     source TEXT NOT NULL CHECK (source IN ('develop', 'start')), repeat_signups INTEGER NOT NULL DEFAULT 0,
     utm_source TEXT, utm_medium TEXT, utm_campaign TEXT, utm_content TEXT, utm_term TEXT, ref TEXT, landing_path TEXT,
     state TEXT NOT NULL DEFAULT 'owed'
       CHECK (state IN ('owed', 'sending', 'sent', 'refused', 'capped', 'confirmed', 'undeliverable')),
     confirmation_sent_at TEXT, confirmation_attempts INTEGER NOT NULL DEFAULT 0, confirmation_claimed_until TEXT,
     confirmation_next_at TEXT, confirmation_failed_at TEXT, confirmation_error TEXT, confirmed_at TEXT,
     opt_in_since TEXT, asked_at TEXT, privacy_policy_at_signup TEXT, privacy_policy_at_confirm TEXT,
     consent_at_signup TEXT, consent_at_confirm TEXT, invite_code TEXT, invited_by TEXT, mailbox_digest TEXT,
     announcements TEXT, version INTEGER NOT NULL DEFAULT 0, wave INTEGER, let_in_at TEXT,
     let_in_mail TEXT CHECK (let_in_mail IN ('owed', 'sending', 'sent', 'refused', 'launch-tool')),
     ranking_objected_at TEXT`,
    `CREATE INDEX signups_owed ON signups (created_at, id) WHERE state IN ('owed', 'sending');
     CREATE INDEX signups_unconfirmed ON signups (opt_in_since, id)
       WHERE state IN ('owed', 'sending', 'sent', 'refused', 'capped') AND opt_in_since IS NOT NULL;
     CREATE UNIQUE INDEX signups_invite_code ON signups (invite_code) WHERE invite_code IS NOT NULL;
     CREATE INDEX signups_invited_by ON signups (invited_by, mailbox_digest) WHERE invited_by IS NOT NULL;`,
  )}
   ${departures(departureKinds18)}
   CREATE TABLE suppressions (
     fingerprint TEXT PRIMARY KEY, until TEXT NOT NULL, why TEXT NOT NULL CHECK (why IN ('bounce', 'complaint'))
   );
   CREATE INDEX suppressions_until ON suppressions (until);
   CREATE TABLE mail_days (
     day TEXT PRIMARY KEY, sent INTEGER NOT NULL DEFAULT 0, throttled INTEGER NOT NULL DEFAULT 0,
     bounced INTEGER NOT NULL DEFAULT 0, complained INTEGER NOT NULL DEFAULT 0
   );`,
  // 19: a person's objections and a restriction, each when; a departure after a wave, found by when they were let in.
  `ALTER TABLE signups ADD COLUMN attribution_objected_at TEXT;
   ALTER TABLE signups ADD COLUMN invite_objected_at TEXT;
   ALTER TABLE signups ADD COLUMN records_objected_at TEXT;
   ALTER TABLE signups ADD COLUMN restricted_at TEXT;
   CREATE INDEX signups_let_in ON signups (let_in_at, id) WHERE wave IS NOT NULL;
   ${departures(`${departureKinds18}, 'after-wave'`)}`,
  // 20: a member undeliverable has its bounce dated, and is deleted its days after it, a departure "undeliverable",
  // found by when it bounced. One that bounced before the bounce was dated counts from the day this came out.
  `UPDATE signups SET confirmation_failed_at = '${undatedBounce}'
     WHERE state = 'undeliverable' AND confirmation_failed_at IS NULL;
   CREATE INDEX signups_undeliverable ON signups (confirmation_failed_at, id) WHERE state = 'undeliverable';
   ${departures(`${departureKinds18}, 'after-wave', 'undeliverable'`)}`,
];

export const schemaVersion = migrations.length;

/** Runs the migrations `db` (the file `file`) has not had yet, in one transaction; refuses a newer schema. */
export function migrate(db: Database.Database, file: string): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > schemaVersion) {
    throw new StoreError(
      `${file} was written by a newer version (schema ${current}, this one knows ${schemaVersion}); update the site before using it.`,
    );
  }
  db.transaction(() => {
    for (const migration of migrations.slice(current)) db.exec(migration);
    db.pragma(`user_version = ${schemaVersion}`);
  })();
}
