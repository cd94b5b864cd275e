-- When people left and how: never who.
CREATE TABLE departures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  left_at timestamptz NOT NULL,
  how text NOT NULL CHECK (how IN ('link', 'one-click', 'operator', 'pruned'))
);
