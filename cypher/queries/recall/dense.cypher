// One recall's dense candidates from all three layers, in one round trip: per layer a pool of
// $pool nearest nodes from the vector index, filtered inside it to the user, of which the k most
// similar are kept with exact plain cosine. A budget of 0 skips its layer. recall/lexical runs
// at the same time (on another core), so a recall waits for the slower of the two.
// Instants come back as ISO strings: the driver's temporal decoding is slow Python.
CYPHER 25
CALL () {
  WITH $k_interactions AS k WHERE k > 0
  MATCH (n:Interaction)
    SEARCH n IN (
      VECTOR INDEX interaction_embedding
      FOR $vector
      WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.consolidated IN $consolidated
      LIMIT $pool
    ) SCORE AS similarity
  WITH n ORDER BY similarity DESC LIMIT $k_interactions
  WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score ORDER BY score DESC
  RETURN collect({item: n {.id, .tenant, .user_id, .session_id, .speaker, .text, .seq, .consolidated,
                           .source_ref, occurred_at: toString(n.occurred_at),
                           consolidated_at: toString(n.consolidated_at)},
                  score: score}) AS interactions_dense
}
CALL () {
  WITH $k_episodes AS k WHERE k > 0
  MATCH (n:Episode)
    SEARCH n IN (
      VECTOR INDEX episode_embedding
      FOR $vector
      WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.current = true
      LIMIT $pool
    ) SCORE AS similarity
  WITH n ORDER BY similarity DESC LIMIT $k_episodes
  WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score ORDER BY score DESC
  RETURN collect({item: n {.id, .tenant, .user_id, .title, .summary, .version, .current,
                           first_at: toString(n.first_at), last_at: toString(n.last_at),
                           created_at: toString(n.created_at), valid_from: toString(n.valid_from),
                           superseded_at: toString(n.superseded_at)},
                  score: score}) AS episodes_dense
}
CALL () {
  WITH $k_facts AS k WHERE k > 0
  MATCH (n:Fact)
    SEARCH n IN (
      VECTOR INDEX fact_embedding
      FOR $vector
      WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.status = 'active'
      LIMIT $pool
    ) SCORE AS similarity
  WITH n ORDER BY similarity DESC LIMIT $k_facts
  WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score ORDER BY score DESC
  RETURN collect({item: n {.id, .tenant, .user_id, .text, .kind, .status,
                           valid_from: toString(n.valid_from), valid_to: toString(n.valid_to),
                           created_at: toString(n.created_at)},
                  score: score}) AS facts_dense
}
RETURN interactions_dense, episodes_dense, facts_dense
