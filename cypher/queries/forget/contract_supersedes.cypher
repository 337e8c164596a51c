// Before erased facts go, each surviving fact that replaced a kept fact through them (selected by
// restorable_facts.cypher) replaces it directly. The kept fact stays superseded with its validity
// unchanged; the new edge holds when it stopped holding and the run recording the forget, but no
// reason: the erased facts' reasons may restate the forgotten turn.
UNWIND $relinks AS r
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (survivor:Fact {tenant: $tenant, user_id: $user_id, id: r.survivor_id})
USING INDEX SEEK survivor:Fact(id)
MATCH (old:Fact {tenant: $tenant, user_id: $user_id, id: r.old_id})
USING INDEX SEEK old:Fact(id)
CREATE (survivor)-[:SUPERSEDES {at: old.valid_to, run_id: $run_id}]->(old)
RETURN count(*) AS contracted
