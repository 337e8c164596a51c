// The episodes and facts that rest on one interaction, to rescope once it is erased, and the facts
// a person stated that replaced one of those facts (through a chain of such facts): they answer in
// the scopes of what they replaced (docs/scopes.md#inheritance), so they lose the turn's scopes too.
// Read before the erased facts and their SUPERSEDES edges go.
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: $id})
USING INDEX SEEK i:Interaction(id)
OPTIONAL MATCH (e:Episode)-[:DERIVED_FROM]->(i)
WITH i, collect(DISTINCT e.id) AS episode_ids
OPTIONAL MATCH (f:Fact)-[:DERIVED_FROM]->(i)
WITH i, episode_ids, collect(DISTINCT f.id) AS direct
OPTIONAL MATCH (g:Fact)-[:DERIVED_FROM]->(:Episode)-[:DERIVED_FROM]->(i)
WITH episode_ids, direct, collect(DISTINCT g.id) AS indirect
WITH episode_ids, direct + [x IN indirect WHERE NOT x IN direct] AS resting
OPTIONAL MATCH path = (s:Fact)-[:SUPERSEDES*1..]->(f:Fact)
USING INDEX SEEK f:Fact(id)
WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.id IN resting
  AND s.tenant = $tenant AND s.user_id = $user_id
  AND all(n IN nodes(path)[..-1] WHERE EXISTS {
    MATCH (r:ConsolidationRun)-[:PRODUCED]->(n)
    WHERE r.tenant = $tenant AND r.user_id = $user_id AND r.provider = $person
  })
WITH episode_ids, resting, collect(DISTINCT s.id) AS stated
RETURN episode_ids, resting + [x IN stated WHERE NOT x IN resting] AS fact_ids
