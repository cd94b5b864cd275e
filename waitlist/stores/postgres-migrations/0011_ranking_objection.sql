-- An objection to being ranked by the creators one invited (npm run waitlist -- object-to-ranking), the Privacy
-- Policy's right to object: from then on a wave by invites counts none for that person. Kept with the signup, so a
-- leave takes it.
ALTER TABLE signups ADD COLUMN ranking_objected_at timestamptz;
