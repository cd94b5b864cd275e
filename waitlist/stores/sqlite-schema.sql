-- The SQLite store's schema as its migrations leave it today (sqlite-migrations.ts, schema 19): what a store is,
-- readable in one place. sql-schema.test.ts holds it to what the migrations build, and its CHECKs to signup-life's
-- types. Instants are ISO 8601 text in UTC. A change is a new migration, and this file changed with it.

-- One row per listed address, unique on its key (email-address.ts). A leave deletes it whole.
CREATE TABLE signups (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL,
  email_key TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  -- npm start's and gatsby develop's own: Netlify's signups are in Netlify Blobs.
  source TEXT NOT NULL CHECK (source IN ('develop', 'start')),
  repeat_signups INTEGER NOT NULL DEFAULT 0,
  -- Where it came from (attribution.ts), first touch.
  utm_source TEXT,
  utm_medium TEXT,
  utm_campaign TEXT,
  utm_content TEXT,
  utm_term TEXT,
  ref TEXT,
  landing_path TEXT,
  -- Where it stands: signup-life's SignupState, written only by its transitions.
  state TEXT NOT NULL DEFAULT 'owed' CHECK (
    state IN ('owed', 'sending', 'sent', 'refused', 'capped', 'confirmed', 'undeliverable')
  ),
  -- The confirmation e-mail: sent, refused or capped when; attempts, who holds it until when, when it is due again.
  confirmation_sent_at TEXT,
  confirmation_attempts INTEGER NOT NULL DEFAULT 0,
  confirmation_claimed_until TEXT,
  confirmation_next_at TEXT,
  confirmation_failed_at TEXT,
  confirmation_error TEXT,
  -- Double opt-in and the record of consent; opt_in_since is the first asking, which the retention counts from.
  confirmed_at TEXT,
  opt_in_since TEXT,
  asked_at TEXT,
  privacy_policy_at_signup TEXT,
  privacy_policy_at_confirm TEXT,
  consent_at_signup TEXT,
  consent_at_confirm TEXT,
  -- Invites (invites.ts): its own code, the code it came by, its mailbox's keyed digest.
  invite_code TEXT,
  invited_by TEXT,
  mailbox_digest TEXT,
  -- The policy-change announcements it was sent, as ",id,id,".
  announcements TEXT,
  -- The version a change compares and bumps (record-keeper.ts).
  version INTEGER NOT NULL DEFAULT 0,
  -- Waves (let-in): the wave, when, and its "You're in" e-mail's state.
  wave INTEGER,
  let_in_at TEXT,
  let_in_mail TEXT CHECK (let_in_mail IN ('owed', 'sending', 'sent', 'refused', 'launch-tool')),
  -- An objection to being ranked by the creators one invited.
  ranking_objected_at TEXT,
  -- The other objections (attribution and invite cleared with theirs), and a restriction: kept, used for nothing else.
  attribution_objected_at TEXT,
  invite_objected_at TEXT,
  records_objected_at TEXT,
  restricted_at TEXT
);
-- The sweep reads those owed through this (signup-life's owes), the retention those unconfirmed (expired).
CREATE INDEX signups_owed ON signups (created_at, id) WHERE state IN ('owed', 'sending');
CREATE INDEX signups_unconfirmed ON signups (opt_in_since, id)
  WHERE state IN ('owed', 'sending', 'sent', 'refused', 'capped') AND opt_in_since IS NOT NULL;
CREATE UNIQUE INDEX signups_invite_code ON signups (invite_code) WHERE invite_code IS NOT NULL;
-- The retention after a wave reads those let in by this.
CREATE INDEX signups_let_in ON signups (let_in_at, id) WHERE wave IS NOT NULL;
-- The retention after a bounce reads the undeliverable by this (signup-life's pastUndeliverable).
CREATE INDEX signups_undeliverable ON signups (confirmation_failed_at, id) WHERE state = 'undeliverable';
-- An inviter's count reads its invitees by this, never the list.
CREATE INDEX signups_invited_by ON signups (invited_by, mailbox_digest) WHERE invited_by IS NOT NULL;

-- When people left and how, never who; a keyed digest of a member who left, until the retention drops it.
CREATE TABLE departures (
  id INTEGER PRIMARY KEY,
  left_at TEXT NOT NULL,
  how TEXT NOT NULL CHECK (how IN ('link', 'one-click', 'operator', 'pruned', 'complaint', 'after-wave', 'undeliverable')),
  digest TEXT
);
CREATE INDEX departures_digest ON departures (left_at) WHERE digest IS NOT NULL;

-- The secrets the store keeps (the links' secret without WAITLIST_SECRET) and the once-only marks.
CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);

-- Confirmation e-mails per mailbox digest per UTC day, for the daily cap (mail/mailbox.ts).
CREATE TABLE mailbox_mail (
  counter TEXT NOT NULL,
  day TEXT NOT NULL,
  mails INTEGER NOT NULL,
  PRIMARY KEY (counter, day)
);
CREATE INDEX mailbox_mail_day ON mailbox_mail (day);

-- A keyed fingerprint of an address the mail must never reach again (a bounce for good, a complaint), until then.
CREATE TABLE suppressions (
  fingerprint TEXT PRIMARY KEY,
  until TEXT NOT NULL,
  why TEXT NOT NULL CHECK (why IN ('bounce', 'complaint'))
);
CREATE INDEX suppressions_until ON suppressions (until);

-- Each UTC day's mail, for the rates a provider watches.
CREATE TABLE mail_days (
  day TEXT PRIMARY KEY,
  sent INTEGER NOT NULL DEFAULT 0,
  throttled INTEGER NOT NULL DEFAULT 0,
  bounced INTEGER NOT NULL DEFAULT 0,
  complained INTEGER NOT NULL DEFAULT 0
);
