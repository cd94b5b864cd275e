-- Invites (waitlist/invites.ts): a signup's own code from its first confirmation, the code of the invite link it came
-- by, and the keyed digest of its mailbox (one invitee per mailbox, never its own inviter's).
ALTER TABLE signups ADD COLUMN invite_code text;
ALTER TABLE signups ADD COLUMN invited_by text;
ALTER TABLE signups ADD COLUMN mailbox text;

CREATE UNIQUE INDEX signups_invite_code ON signups (invite_code) WHERE invite_code IS NOT NULL;

-- An inviter's count reads its invitees by this index, never the list.
CREATE INDEX signups_invited_by ON signups (invited_by, mailbox) WHERE invited_by IS NOT NULL;
