// Recomputes the scopes of surviving episodes and facts from the interactions they still rest on
// (graph/scopes.py), so that nothing of an erased interaction's agent, session or metadata stays.
// Episodes first: a fact without exact interactions takes its episode's. A fact a person stated
// also takes the scopes of the facts it replaced (docs/scopes.md#inheritance).
CYPHER 25
CALL () {
  UNWIND $episode_ids AS id
  // By the id's unique index, pinned: on a fresh database's statistics the planner took another.
  MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: id})
  USING INDEX SEEK e:Episode(id)
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
  USING INDEX SEEK f:Fact(id)
  // A fact a person stated (a run of $person produced it) answers, as when it was stated, in the
  // scopes of the facts it replaced too (beliefs/supersede.cypher). Those facts go first, the
  // oldest first, so a correction reads what it replaced already recomputed: each execution of
  // the subquery below sees the scopes set by the ones before it. The run is reached from the
  // fact, its owner checked past a DISTINCT, as in forget/rederive_stated.
  WITH f, EXISTS {
    MATCH (r:ConsolidationRun)-[:PRODUCED]->(f)
    WITH DISTINCT r
    WHERE r.tenant = $tenant AND r.user_id = $user_id AND r.provider = $person
  } AS stated
  ORDER BY stated, f.created_at
  CALL (f, stated) {
    OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
    WITH f, stated, collect(i.scopes) AS direct
    OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
    WITH f, stated, direct, collect(e.scopes) AS episodes
    OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact) WHERE stated
    WITH f, direct, episodes, collect(old.scopes) AS replaced
    CALL (direct, episodes, replaced) {
      UNWIND (CASE WHEN size(direct) > 0 THEN direct ELSE episodes END) + replaced AS held
      UNWIND held AS token
      WITH DISTINCT token ORDER BY token
      RETURN collect(token) AS scopes
    }
    SET f.scopes = scopes
  }
  RETURN count(f) AS facts
}
RETURN episodes, facts
