// Finds a user's facts of one status (the retracted facts a consolidation is shown) without
// reading every fact of the user through the owner index.
CREATE INDEX fact_status IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.status)
