// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK n:Episode(id)
WHERE n.id IN $ids
RETURN n {.*, embedding: null} AS episode
