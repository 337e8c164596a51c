CREATE INDEX interaction_vector_no IF NOT EXISTS FOR (n:Interaction) ON (n.tenant, n.user_id, n.vector_no)
