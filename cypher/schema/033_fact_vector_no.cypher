CREATE INDEX fact_vector_no IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.vector_no)
