// The episodes and facts that rest on one interaction, to rescope once it is erased.
MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: $id})
OPTIONAL MATCH (e:Episode)-[:DERIVED_FROM]->(i)
WITH i, collect(DISTINCT e.id) AS episode_ids
OPTIONAL MATCH (f:Fact)-[:DERIVED_FROM]->(i)
WITH episode_ids, collect(DISTINCT f.id) AS direct
OPTIONAL MATCH (g:Fact)-[:DERIVED_FROM]->(:Episode)-[:DERIVED_FROM]->(:Interaction {tenant: $tenant, user_id: $user_id, id: $id})
WITH episode_ids, direct, collect(DISTINCT g.id) AS indirect
RETURN episode_ids, direct + [x IN indirect WHERE NOT x IN direct] AS fact_ids
