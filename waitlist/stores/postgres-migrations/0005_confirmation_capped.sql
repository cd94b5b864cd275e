-- A confirmation not sent because its mailbox had its day's e-mails (waitlist/mail/mailbox.ts), told apart from one
-- the mail server refused: a repeat signup a day later asks again.
ALTER TABLE signups ADD COLUMN confirmation_capped boolean NOT NULL DEFAULT false;
