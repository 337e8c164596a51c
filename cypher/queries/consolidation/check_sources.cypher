// Which of the ids this write relies on exist for this owner (others are rejected up front).
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
OPTIONAL MATCH (i:Interaction {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK i:Interaction(id)
WHERE i.id IN $interaction_ids
WITH collect(i.id) AS interactions
OPTIONAL MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK f:Fact(id)
WHERE f.id IN $fact_ids
WITH interactions, collect(f.id) AS facts
OPTIONAL MATCH (e:Episode {tenant: $tenant, user_id: $user_id, current: true})
USING INDEX SEEK e:Episode(id)
WHERE e.id = $previous_episode_id
RETURN interactions, facts, collect(e.id) AS episodes
