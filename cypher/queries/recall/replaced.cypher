// The texts of the facts that some of a user's recalled facts replaced (SUPERSEDES), newest first:
// what a context shows as the earlier value beside the latest (consolidation/recall/planning/).
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id})-[:SUPERSEDES]->(old:Fact {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK f:Fact(id)
WHERE f.id IN $ids
WITH f, old ORDER BY old.valid_from DESC
RETURN f.id AS id, collect(old.text) AS texts
