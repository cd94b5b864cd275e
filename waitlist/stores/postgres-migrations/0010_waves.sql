-- Waves (npm run waitlist -- let-in): the wave a signup was let in with at launch, when, and the state of its
-- "You're in" e-mail, noted before it is sent so a run resumed after a crash mails nobody twice. In the signup's row,
-- so a leave takes it, and one who joins again starts over.
ALTER TABLE signups ADD COLUMN wave integer;
ALTER TABLE signups ADD COLUMN let_in_at timestamptz;
ALTER TABLE signups ADD COLUMN let_in_mail text
  CHECK (let_in_mail IN ('owed', 'sending', 'sent', 'refused', 'launch-tool'));
