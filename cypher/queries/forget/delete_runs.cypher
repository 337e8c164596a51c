// Runs whose every product is being erased describe only forgotten memory: they go too. Runs that
// also produced surviving nodes stay (they are cost records) and merely lose the edges.
MATCH (r:ConsolidationRun {tenant: $tenant, user_id: $user_id})-[:PRODUCED]->(n)
WHERE n.id IN $node_ids
WITH DISTINCT r
WHERE NOT EXISTS { MATCH (r)-[:PRODUCED]->(m) WHERE NOT m.id IN $node_ids }
WITH collect(r) AS runs, collect(r.id) AS ids
FOREACH (r IN runs | DETACH DELETE r)
RETURN ids
