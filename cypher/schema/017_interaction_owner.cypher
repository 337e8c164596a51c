CREATE INDEX interaction_owner IF NOT EXISTS FOR (n:Interaction) ON (n.tenant, n.user_id)
