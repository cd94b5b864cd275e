-- A member undeliverable (its mail bounced for good) has its bounce dated, and is deleted the Privacy Policy's days
-- after it, a departure "undeliverable", found by when it bounced. One that bounced before the bounce was dated counts
-- from the day this came out (signup-life's undatedBounce).
UPDATE signups SET confirmation_failed_at = '2026-12-02T00:00:00.000Z'
  WHERE state = 'undeliverable' AND confirmation_failed_at IS NULL;
CREATE INDEX signups_undeliverable ON signups (confirmation_failed_at, id) WHERE state = 'undeliverable';
ALTER TABLE departures DROP CONSTRAINT departures_how_check;
ALTER TABLE departures ADD CONSTRAINT departures_how_check
  CHECK (how IN ('link', 'one-click', 'operator', 'pruned', 'complaint', 'after-wave', 'undeliverable'));
