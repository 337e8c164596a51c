CREATE INDEX episode_last_at IF NOT EXISTS FOR (n:Episode) ON (n.last_at)
