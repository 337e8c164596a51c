// Consolidated turns also stop waiting for a batch merge (graph/waiting.py): in the same commit.
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (i:Interaction {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK i:Interaction(id)
WHERE i.id IN $ids
SET i.consolidated = true, i.gate_checked = true,
    i.consolidated_at = coalesce(i.consolidated_at, datetime($at))
REMOVE i.awaits, i.awaits_similarity
RETURN count(i) AS marked
