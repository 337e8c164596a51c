// A stated fact's source: the interaction the caller named, or else the run that records who
// made the change and why (the recorded correction). Returns the fact as it now stands, scopes
// included (supersede.cypher and this statement set them after create_fact.cypher).
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $fact_id})
USING INDEX SEEK f:Fact(id)
MATCH (run:ConsolidationRun {id: $run_id})
USING INDEX SEEK run:ConsolidationRun(id)
WHERE run.tenant = $tenant AND run.user_id = $user_id
OPTIONAL MATCH (i:Interaction {tenant: $tenant, user_id: $user_id, id: $interaction_id})
USING INDEX SEEK i:Interaction(id)
CALL (f, run, i) {
  WITH f, run, i WHERE i IS NOT NULL
  CREATE (f)-[:DERIVED_FROM {run_id: run.id}]->(i)
  SET f.scopes = reduce(s = coalesce(f.scopes, []), t IN coalesce(i.scopes, []) | CASE WHEN t IN s THEN s ELSE s + t END)
}
CALL (f, run, i) {
  WITH f, run, i WHERE i IS NULL
  CREATE (f)-[:DERIVED_FROM {run_id: run.id}]->(run)
}
RETURN f {.*, embedding: null} AS fact
