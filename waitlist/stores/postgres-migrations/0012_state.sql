-- Where a signup stands, one field (signup-life's SignupState), read from the times that said it before; the owed
-- and retention indexes over it; the mailbox's digest named for what it holds. The capped flag is a state now.
ALTER TABLE signups ADD COLUMN state text NOT NULL DEFAULT 'owed'
  CHECK (state IN ('owed', 'sending', 'sent', 'refused', 'capped', 'confirmed'));
UPDATE signups SET state = CASE
  WHEN confirmed_at IS NOT NULL THEN 'confirmed'
  WHEN confirmation_sent_at IS NOT NULL THEN 'sent'
  WHEN confirmation_failed_at IS NOT NULL AND confirmation_capped THEN 'capped'
  WHEN confirmation_failed_at IS NOT NULL THEN 'refused'
  WHEN confirmation_claimed_until IS NOT NULL THEN 'sending'
  ELSE 'owed' END;
ALTER TABLE signups DROP COLUMN confirmation_capped;
ALTER TABLE signups RENAME COLUMN mailbox TO mailbox_digest;
DROP INDEX signups_confirmation_owed;
CREATE INDEX signups_owed ON signups (created_at, id) WHERE state IN ('owed', 'sending');
DROP INDEX signups_unconfirmed;
CREATE INDEX signups_unconfirmed ON signups (opt_in_since, id)
  WHERE state IN ('owed', 'sending', 'sent', 'refused', 'capped') AND opt_in_since IS NOT NULL;
