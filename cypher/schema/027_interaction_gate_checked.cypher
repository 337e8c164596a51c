// Finds a user's interactions still waiting for the recurrence gate without scanning the rest.
CREATE INDEX interaction_gate_checked IF NOT EXISTS FOR (n:Interaction) ON (n.tenant, n.user_id, n.gate_checked)
