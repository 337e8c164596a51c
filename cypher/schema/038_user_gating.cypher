// Finds the users with interactions still waiting for the recurrence gate (the sweeper, /metrics,
// /readyz) without reading every user of the database (a user without `gating` is not in the index).
CREATE INDEX user_gating IF NOT EXISTS FOR (n:User) ON (n.gating)
