// Finds a user's turns waiting for an episode's batch merge without reading the rest of its turns
// (a node without `awaits` is not in the index).
CREATE INDEX interaction_awaits IF NOT EXISTS FOR (n:Interaction) ON (n.tenant, n.user_id, n.awaits)
