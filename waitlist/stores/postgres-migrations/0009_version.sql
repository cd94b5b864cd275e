-- A version a change of the row compares and bumps: signup-life's transitions, written by compare-and-swap.
ALTER TABLE signups ADD COLUMN version integer NOT NULL DEFAULT 0;
