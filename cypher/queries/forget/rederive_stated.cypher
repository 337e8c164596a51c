// Facts a person stated that rested only on the forgotten interaction now rest on the run that
// recorded the change (a run of $person that produced them), exactly as a correction made without
// a source does: their text stays, and every fact keeps a DERIVED_FROM edge.
UNWIND $ids AS fact_id
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: fact_id})
USING INDEX SEEK f:Fact(id)
WHERE NOT EXISTS { MATCH (f)-[:DERIVED_FROM]->() }
// The run is reached from the fact, its owner checked past a DISTINCT (the planner moves a predicate
// across a plain WITH, not across a DISTINCT): with the check in the MATCH, on some statistics the
// planner read every run of the user by the runs' owner index (docs/design/graph-model.md#pinned-indexes).
CALL (f) {
  MATCH (run:ConsolidationRun)-[:PRODUCED]->(f)
  WITH DISTINCT run
  WHERE run.tenant = $tenant AND run.user_id = $user_id AND run.provider = $person
  RETURN run ORDER BY run.at LIMIT 1
}
CREATE (f)-[:DERIVED_FROM {run_id: run.id}]->(run)
RETURN collect(f.id) AS ids
