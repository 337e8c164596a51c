// Finds a user's interaction parts (forgetting a user, counting them) without a label scan.
CREATE INDEX interaction_part_owner IF NOT EXISTS FOR (n:InteractionPart) ON (n.tenant, n.user_id)
