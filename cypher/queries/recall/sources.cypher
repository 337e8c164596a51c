// Where the recalled episodes and facts came from: per episode its interactions in stream order
// with the recurrence similarity, per fact its episodes and exact interactions.
CYPHER 25
CALL () {
  UNWIND $episode_ids AS id
  MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: id})-[d:DERIVED_FROM]->(i:Interaction)
  WITH id, i, d ORDER BY i.seq
  WITH id, collect({id: i.id, similarity: d.similarity}) AS sources
  RETURN collect({id: id, sources: sources}) AS episode_sources
}
CALL () {
  UNWIND $fact_ids AS id
  MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: id})
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
  WITH f, id, collect(DISTINCT e.id) AS episode_ids
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
  WITH id, episode_ids, collect(DISTINCT i.id) AS interaction_ids
  RETURN collect({id: id, episode_ids: episode_ids, interaction_ids: interaction_ids}) AS fact_sources
}
RETURN episode_sources, fact_sources
