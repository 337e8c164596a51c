CREATE INDEX interaction_seq IF NOT EXISTS FOR (n:Interaction) ON (n.tenant, n.user_id, n.seq)
