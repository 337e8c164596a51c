// Where the recalled episodes and facts came from: per episode its interactions in stream order
// with the recurrence similarity, per fact its episodes and exact interactions. Beside them, the
// beliefs a person withdrew near these candidates: the user's facts retracted, or superseded by a
// fact a person's correction produced (withdrawn at or before $as_of, when given), that are
// DERIVED_FROM a candidate episode or turn ($interaction_ids) or a turn of a candidate episode,
// directly or through an episode of theirs; each with those ids (`reach`), from which the caller
// keeps the ones its evidence holds (consolidation/recall/recaller.py).
CYPHER 25
CALL () {
  UNWIND $episode_ids AS id
  // Each candidate by a pinned seek of its id's index: on some statistics the planner took the
  // owner index and read every episode (or fact) of the user for each.
  MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: id})-[d:DERIVED_FROM]->(i:Interaction)
  USING INDEX SEEK e:Episode(id)
  WITH id, i, d ORDER BY i.seq
  WITH id, collect({id: i.id, similarity: d.similarity}) AS sources
  RETURN collect({id: id, sources: sources}) AS episode_sources
}
CALL () {
  UNWIND $fact_ids AS id
  MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: id})
  USING INDEX SEEK f:Fact(id)
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
  WITH f, id, collect(DISTINCT e.id) AS episode_ids
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
  WITH id, episode_ids, collect(DISTINCT i.id) AS interaction_ids
  RETURN collect({id: id, episode_ids: episode_ids, interaction_ids: interaction_ids}) AS fact_sources
}
CALL (episode_sources) {
  WITH $episode_ids + $interaction_ids
       + reduce(turns = [], e IN episode_sources | turns + [s IN e.sources | s.id]) AS near
  // The user's facts come from the owner index; only the withdrawn ones (the sort keeps the
  // planner from checking the others' edges) are followed.
  MATCH (f:Fact {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK f:Fact(tenant, user_id, status)  // else, on a fresh database, every fact
  WHERE f.status IN [$retracted, $superseded]
    AND ($as_of IS NULL OR f.valid_to <= $as_of)
  WITH near, f ORDER BY f.valid_to DESC, f.id
  WHERE f.status = $retracted OR EXISTS {
      MATCH (f)<-[:SUPERSEDES]-(:Fact)<-[:PRODUCED]-(run:ConsolidationRun)
      WHERE run.provider = $person AND run.trigger = $correction
    }
  // The turns are filtered after the expansion from the fact: with `i.id IN near` in the pattern,
  // Neo4j may plan the turns from a scan of the id index, every tenant's turns.
  WITH f, [(f)-[:DERIVED_FROM]->(s) WHERE s.id IN near | s.id]
       + [id IN [(f)-[:DERIVED_FROM]->(:Episode)-[:DERIVED_FROM]->(i:Interaction) | i.id] WHERE id IN near] AS reach
  WHERE size(reach) > 0
  RETURN collect({fact: f {.*, embedding: null}, reach: reach}) AS withdrawn
}
RETURN episode_sources, fact_sources, withdrawn
