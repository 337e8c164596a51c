// The interactions each episode was made from, with the recurrence similarity on the edge.
MATCH (e:Episode {tenant: $tenant, user_id: $user_id})-[d:DERIVED_FROM]->(i:Interaction)
WHERE e.id IN $ids
RETURN e.id AS episode_id, i.id AS interaction_id, d.similarity AS similarity
ORDER BY e.id, i.seq
