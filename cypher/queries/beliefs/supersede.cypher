// A correction: the new fact SUPERSEDES the old one, whose validity closes at $at.
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (old:Fact {tenant: $tenant, user_id: $user_id, id: $old_id, status: 'active'})
USING INDEX SEEK old:Fact(id)
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $new_id})
USING INDEX SEEK f:Fact(id)
SET old.status = 'superseded', old.valid_to = datetime($at)
// The correction answers in every scope the belief it replaces did.
SET f.scopes = reduce(s = coalesce(f.scopes, []), t IN coalesce(old.scopes, []) | CASE WHEN t IN s THEN s ELSE s + t END)
CREATE (f)-[:SUPERSEDES {at: datetime($at), reason: $reason, run_id: $run_id}]->(old)
RETURN old {.*, embedding: null} AS fact
