-- One row per listed address. "Once" is the unique key: two signups of one address at the same moment store one.
CREATE TABLE signups (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL,
  email_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  source text NOT NULL CHECK (source IN ('develop', 'start', 'netlify', 'netlify-preview')),
  repeat_signups integer NOT NULL DEFAULT 0,
  -- Where it came from (attribution.ts), first touch.
  utm_source text,
  utm_medium text,
  utm_campaign text,
  utm_content text,
  utm_term text,
  ref text,
  landing_path text,
  -- The confirmation e-mail: owed while neither sent nor failed for good.
  confirmation_sent_at timestamptz,
  confirmation_attempts integer NOT NULL DEFAULT 0,
  confirmation_claimed_until timestamptz,
  confirmation_next_at timestamptz,
  confirmation_failed_at timestamptz,
  confirmation_error text,
  -- Double opt-in and the record of consent.
  confirmed_at timestamptz,
  -- The first asking to confirm, which the retention counts from; asked_at, the asking under way (a repeat
  -- signup's), which never moves it.
  opt_in_since timestamptz,
  asked_at timestamptz,
  privacy_policy_at_signup text,
  privacy_policy_at_confirm text,
  consent_at_signup text,
  consent_at_confirm text
);

-- The sweep's work grows with what is owed, never with the list.
CREATE INDEX signups_confirmation_owed ON signups (created_at, id)
  WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL;

-- The retention's: signups asked to confirm that never did, those asked first first.
CREATE INDEX signups_unconfirmed ON signups (opt_in_since, id)
  WHERE confirmed_at IS NULL AND opt_in_since IS NOT NULL;
