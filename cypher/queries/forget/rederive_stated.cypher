// Facts a person stated that rested only on the forgotten interaction now rest on the run that
// recorded the change (a run of $person that produced them), exactly as a correction made without
// a source does: their text stays, and every fact keeps a DERIVED_FROM edge.
UNWIND $ids AS fact_id
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: fact_id})
USING INDEX SEEK f:Fact(id)
WHERE NOT EXISTS { MATCH (f)-[:DERIVED_FROM]->() }
CALL (f) {
  MATCH (run:ConsolidationRun)-[:PRODUCED]->(f)
  WHERE run.tenant = $tenant AND run.user_id = $user_id AND run.provider = $person
  RETURN run ORDER BY run.at LIMIT 1
}
CREATE (f)-[:DERIVED_FROM {run_id: run.id}]->(run)
RETURN collect(f.id) AS ids
