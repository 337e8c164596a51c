// Finds the users whose turns wait for an episode's batch merge (the sweeper, /metrics) without
// reading every user of the database (a user without `awaiting` is not in the index).
CREATE INDEX user_awaiting IF NOT EXISTS FOR (n:User) ON (n.awaiting)
