-- The leave links' secret when WAITLIST_SECRET is not set, made on first use.
CREATE TABLE settings (
  name text PRIMARY KEY,
  value text NOT NULL
);
