-- A person's objections (npm run waitlist -- object: to their page and campaign tag, the invite code they came by, the
-- ranking, the records) and a restriction of their entry (npm run waitlist -- restrict), each when; a departure after
-- a wave (the entry of a person let in, deleted the Privacy Policy's days after their wave), found by when they were
-- let in.
ALTER TABLE signups
  ADD COLUMN attribution_objected_at timestamptz,
  ADD COLUMN invite_objected_at timestamptz,
  ADD COLUMN records_objected_at timestamptz,
  ADD COLUMN restricted_at timestamptz;
CREATE INDEX signups_let_in ON signups (let_in_at, id) WHERE wave IS NOT NULL;
ALTER TABLE departures DROP CONSTRAINT departures_how_check;
ALTER TABLE departures ADD CONSTRAINT departures_how_check
  CHECK (how IN ('link', 'one-click', 'operator', 'pruned', 'complaint', 'after-wave'));
