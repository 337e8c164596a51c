// For each fact: the episodes and the exact interactions it was derived from.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
WHERE f.id IN $ids
OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
RETURN f.id AS fact_id, collect(DISTINCT e.id) AS episode_ids, collect(DISTINCT i.id) AS interaction_ids
