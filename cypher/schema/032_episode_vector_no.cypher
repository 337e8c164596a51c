CREATE INDEX episode_vector_no IF NOT EXISTS FOR (n:Episode) ON (n.tenant, n.user_id, n.vector_no)
