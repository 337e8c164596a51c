CREATE INDEX fact_owner IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id)
