-- The policy-change announcements a signup was sent (npm run waitlist -- announce-policy-change), as ",id,id,":
-- noted before each is sent, so a second run, or one resumed after a crash, never mails anyone twice. Kept in the
-- signup's row, so a leave deletes them with it.
ALTER TABLE signups ADD COLUMN announcements text;
