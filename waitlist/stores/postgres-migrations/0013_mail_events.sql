-- A member whose mail bounced for good (undeliverable), a departure by complaint, the fingerprints the mail must
-- never reach again, and each day's mail figures.
ALTER TABLE signups DROP CONSTRAINT signups_state_check;
ALTER TABLE signups ADD CONSTRAINT signups_state_check
  CHECK (state IN ('owed', 'sending', 'sent', 'refused', 'capped', 'confirmed', 'undeliverable'));
ALTER TABLE departures DROP CONSTRAINT departures_how_check;
ALTER TABLE departures ADD CONSTRAINT departures_how_check
  CHECK (how IN ('link', 'one-click', 'operator', 'pruned', 'complaint'));
CREATE TABLE suppressions (
  fingerprint text PRIMARY KEY,
  until timestamptz NOT NULL,
  why text NOT NULL CHECK (why IN ('bounce', 'complaint'))
);
CREATE INDEX suppressions_until ON suppressions (until);
CREATE TABLE mail_days (
  day text PRIMARY KEY,
  sent integer NOT NULL DEFAULT 0,
  throttled integer NOT NULL DEFAULT 0,
  bounced integer NOT NULL DEFAULT 0,
  complained integer NOT NULL DEFAULT 0
);
