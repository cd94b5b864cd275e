-- A keyed digest of who left (waitlist/leavers.ts), kept for a while to take them off the launch mailing tool too;
-- the retention's pass sets it back to NULL, and the departure stays, naming nobody.
ALTER TABLE departures ADD COLUMN digest text;

CREATE INDEX departures_digest ON departures (left_at) WHERE digest IS NOT NULL;
