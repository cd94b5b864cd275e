-- The Postgres store's schema as postgres-migrations/ leaves it today (0001 to 0014): what a store is, readable in
-- one place. sql-schema.test.ts holds it to what the migrations build, and its CHECKs to signup-life's types. A change
-- is a new migration file, and this file changed with it. (Not in postgres-migrations/: it is never applied.)

-- One row per listed address, unique on its key (email-address.ts). A leave deletes it whole.
CREATE TABLE signups (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL,
  email_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  source text NOT NULL CHECK (source IN ('develop', 'start', 'netlify', 'netlify-preview')),
  repeat_signups integer NOT NULL DEFAULT 0,
  -- Where it came from (attribution.ts), first touch.
  utm_source text,
  utm_medium text,
  utm_campaign text,
  utm_content text,
  utm_term text,
  ref text,
  landing_path text,
  -- Where it stands: signup-life's SignupState, written only by its transitions.
  state text NOT NULL DEFAULT 'owed' CHECK (
    state IN ('owed', 'sending', 'sent', 'refused', 'capped', 'confirmed', 'undeliverable')
  ),
  -- The confirmation e-mail: sent, refused or capped when; attempts, who holds it until when, when it is due again.
  confirmation_sent_at timestamptz,
  confirmation_attempts integer NOT NULL DEFAULT 0,
  confirmation_claimed_until timestamptz,
  confirmation_next_at timestamptz,
  confirmation_failed_at timestamptz,
  confirmation_error text,
  -- Double opt-in and the record of consent; opt_in_since is the first asking, which the retention counts from.
  confirmed_at timestamptz,
  opt_in_since timestamptz,
  asked_at timestamptz,
  privacy_policy_at_signup text,
  privacy_policy_at_confirm text,
  consent_at_signup text,
  consent_at_confirm text,
  -- Invites (invites.ts): its own code, the code it came by, its mailbox's keyed digest.
  invite_code text,
  invited_by text,
  mailbox_digest text,
  -- The policy-change announcements it was sent, as ",id,id,".
  announcements text,
  -- The version a change compares and bumps (record-keeper.ts).
  version integer NOT NULL DEFAULT 0,
  -- Waves (let-in): the wave, when, and its "You're in" e-mail's state.
  wave integer,
  let_in_at timestamptz,
  let_in_mail text CHECK (let_in_mail IN ('owed', 'sending', 'sent', 'refused', 'launch-tool')),
  -- An objection to being ranked by the creators one invited.
  ranking_objected_at timestamptz,
  -- The other objections (attribution and invite cleared with theirs), and a restriction: kept, used for nothing else.
  attribution_objected_at timestamptz,
  invite_objected_at timestamptz,
  records_objected_at timestamptz,
  restricted_at timestamptz
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
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  left_at timestamptz NOT NULL,
  how text NOT NULL CHECK (how IN ('link', 'one-click', 'operator', 'pruned', 'complaint', 'after-wave', 'undeliverable')),
  digest text
);
CREATE INDEX departures_digest ON departures (left_at) WHERE digest IS NOT NULL;

-- The secrets the store keeps (the links' secret without WAITLIST_SECRET) and the once-only marks.
CREATE TABLE settings (name text PRIMARY KEY, value text NOT NULL);

-- Confirmation e-mails per mailbox digest per UTC day, for the daily cap (mail/mailbox.ts).
CREATE TABLE mailbox_mail (
  counter text NOT NULL,
  day date NOT NULL,
  mails integer NOT NULL,
  PRIMARY KEY (counter, day)
);
CREATE INDEX mailbox_mail_day ON mailbox_mail (day);

-- A keyed fingerprint of an address the mail must never reach again (a bounce for good, a complaint), until then.
CREATE TABLE suppressions (
  fingerprint text PRIMARY KEY,
  until timestamptz NOT NULL,
  why text NOT NULL CHECK (why IN ('bounce', 'complaint'))
);
CREATE INDEX suppressions_until ON suppressions (until);

-- Each UTC day's mail, for the rates a provider watches.
CREATE TABLE mail_days (
  day text PRIMARY KEY,
  sent integer NOT NULL DEFAULT 0,
  throttled integer NOT NULL DEFAULT 0,
  bounced integer NOT NULL DEFAULT 0,
  complained integer NOT NULL DEFAULT 0
);
