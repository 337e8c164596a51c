// Runs whose every product is being erased describe only forgotten memory: they go too. Runs that
// also produced surviving nodes stay (they are cost records) and merely lose the edges. They are
// found from the erased nodes (each by a pinned seek of its label's id index), not by walking every
// run of the user: the run's owner is checked after the expansion (past the WITH), so no plan can
// start from the runs' owner index instead (one did, on some statistics: every run of the user read).
CALL () {
  MATCH (n:Episode) USING INDEX SEEK n:Episode(id) WHERE n.id IN $node_ids RETURN n
  UNION
  MATCH (n:Fact) USING INDEX SEEK n:Fact(id) WHERE n.id IN $node_ids RETURN n
  UNION
  MATCH (n:Interaction) USING INDEX SEEK n:Interaction(id) WHERE n.id IN $node_ids RETURN n
}
MATCH (r:ConsolidationRun)-[:PRODUCED]->(n)
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH DISTINCT r
WHERE r.tenant = $tenant AND r.user_id = $user_id
  AND NOT EXISTS { MATCH (r)-[:PRODUCED]->(m) WHERE NOT m.id IN $node_ids }
WITH collect(r) AS runs, collect(r.id) AS ids
FOREACH (r IN runs | DETACH DELETE r)
RETURN ids
