// Everything that explains one fact: the episodes (with their own source interactions) and the
// exact interactions it was derived from, the facts it replaced and that replaced it, and the
// runs (model, tokens) that produced the fact or its episodes, and the changes people made to it
// (runs with a `by`: a correction, retraction or addition by hand that read or produced it).
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: $id})
USING INDEX SEEK f:Fact(id)
CALL (f) {
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
  RETURN collect(DISTINCT e) AS episode_nodes
}
CALL (episode_nodes) {
  UNWIND episode_nodes AS e
  OPTIONAL MATCH (e)-[d:DERIVED_FROM]->(i:Interaction)
  WITH e, collect(CASE WHEN i IS NULL THEN null
    ELSE {interaction: i {.*, embedding: null}, similarity: d.similarity} END) AS sources
  RETURN collect({episode: e {.*, embedding: null}, sources: sources}) AS episodes
}
CALL (f) {
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
  RETURN collect(i {.*, embedding: null}) AS interactions
}
CALL (f) {
  OPTIONAL MATCH (f)-[s:SUPERSEDES]->(old:Fact)
  RETURN collect(CASE WHEN old IS NULL THEN null
    ELSE {fact: old {.*, embedding: null}, reason: s.reason, at: s.at} END) AS supersedes
}
CALL (f) {
  OPTIONAL MATCH (newer:Fact)-[s:SUPERSEDES]->(f)
  RETURN collect(CASE WHEN newer IS NULL THEN null
    ELSE {fact: newer {.*, embedding: null}, reason: s.reason, at: s.at} END) AS superseded_by
}
CALL (f, episode_nodes) {
  UNWIND [f] + episode_nodes AS p
  MATCH (run:ConsolidationRun)-[:PRODUCED]->(p)
  RETURN collect(DISTINCT run {.*}) AS runs
}
CALL (f) {
  OPTIONAL MATCH (run:ConsolidationRun)-[:READ|PRODUCED]->(f)
  WHERE run.by IS NOT NULL AND run.tenant = $tenant AND run.user_id = $user_id
  WITH DISTINCT run ORDER BY run.at
  RETURN collect(run {.*}) AS corrections
}
RETURN f {.*, embedding: null} AS fact, episodes, interactions, supersedes, superseded_by, runs,
       corrections
