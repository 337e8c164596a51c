CREATE INDEX interaction_occurred_at IF NOT EXISTS FOR (n:Interaction) ON (n.occurred_at)
