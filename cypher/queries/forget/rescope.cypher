// Recomputes the scopes of surviving episodes and facts from the interactions they still rest on
// (graph/scopes.py), so that nothing of an erased interaction's agent, session or metadata stays.
// Episodes first: a fact without exact interactions takes its episode's.
CYPHER 25
CALL () {
  UNWIND $episode_ids AS id
  MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: id})
  CALL (e) {
    OPTIONAL MATCH (e)-[:DERIVED_FROM]->(i:Interaction)
    UNWIND coalesce(i.scopes, []) AS token
    WITH DISTINCT token ORDER BY token
    RETURN collect(token) AS scopes
  }
  SET e.scopes = scopes
  RETURN count(e) AS episodes
}
CALL () {
  UNWIND $fact_ids AS id
  MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: id})
  CALL (f) {
    OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
    WITH f, collect(i.scopes) AS direct
    OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
    WITH direct, collect(e.scopes) AS episodes
    UNWIND CASE WHEN size(direct) > 0 THEN direct ELSE episodes END AS held
    UNWIND held AS token
    WITH DISTINCT token ORDER BY token
    RETURN collect(token) AS scopes
  }
  SET f.scopes = scopes
  RETURN count(f) AS facts
}
RETURN episodes, facts
