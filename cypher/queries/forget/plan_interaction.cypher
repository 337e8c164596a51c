// What forgetting one interaction touches, read while holding the user's consolidation lease:
// every episode version and fact derived from it, and what else each of them rests on. An episode
// version also reports the sources of the version it superseded, so the caller can tell whether
// the version exists only because of this interaction (a merge that added nothing else). A fact
// reports whether a person stated it (a run of $person produced it: a correction or an addition),
// for such a fact rests on the recorded change, not on the turn it cites. Episodes and facts are
// reached from the turn; their owner is checked past a WITH, so no plan starts from the owner index
// instead (on a fresh database's statistics one did: every episode and fact of the user read).
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (x:Interaction {tenant: $tenant, user_id: $user_id, id: $id})
USING INDEX SEEK x:Interaction(id)
CALL (x) {
  OPTIONAL MATCH (e:Episode)-[:DERIVED_FROM]->(x)
  WITH x, e WHERE e.tenant = $tenant AND e.user_id = $user_id
  OPTIONAL MATCH (e)-[:SUPERSEDES]->(previous:Episode)
  RETURN collect({
    id: e.id,
    version: e.version,
    remaining: [(e)-[:DERIVED_FROM]->(o:Interaction) WHERE o <> x | o.id],
    previous_id: previous.id,
    previous_sources: CASE WHEN previous IS NULL THEN []
      ELSE [(previous)-[:DERIVED_FROM]->(p:Interaction) | p.id] END
  }) AS episodes
}
CALL (x) {
  OPTIONAL MATCH (f:Fact)-[:DERIVED_FROM]->(x)
  WITH x, f WHERE f.tenant = $tenant AND f.user_id = $user_id
  RETURN collect({
    id: f.id,
    remaining: [(f)-[:DERIVED_FROM]->(o:Interaction) WHERE o <> x | o.id],
    episode_ids: [(f)-[:DERIVED_FROM]->(e:Episode) | e.id],
    embedding: f.embedding,
    stated: EXISTS {
      MATCH (r:ConsolidationRun)-[:PRODUCED]->(f)
      WHERE r.tenant = $tenant AND r.user_id = $user_id AND r.provider = $person
    }
  }) AS facts
}
RETURN x.id AS id, episodes, facts
