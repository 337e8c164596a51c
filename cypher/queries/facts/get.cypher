// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK n:Fact(id)
WHERE n.id IN $ids
RETURN n {.*, embedding: null} AS fact
