CREATE INDEX episode_owner IF NOT EXISTS FOR (n:Episode) ON (n.tenant, n.user_id)
