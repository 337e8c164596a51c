// Everything one recall reads, in one round trip. Per layer: the dense candidates (a pool of
// $pool from the vector index, filtered inside it to the user, the k most similar kept, exact
// plain cosine) and the lexical ones (full-text; $lucene is already restricted to the user's
// key, null when the query has no searchable term). Then where each episode and fact candidate
// came from. The caller fuses dense and lexical lists; a budget of 0 skips its layer.
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
  RETURN collect({item: n {.id, .tenant, .user_id, .session_id, .speaker, .text, .occurred_at, .seq,
                           .consolidated, .source_ref, .consolidated_at}, score: score}) AS interactions_dense
}
CALL () {
  WITH $k_interactions AS k WHERE k > 0 AND $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('interaction_text', $lucene, {limit: k * 4}) YIELD node, score
  WITH node, score
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.consolidated IN $consolidated
  WITH node, score ORDER BY score DESC LIMIT $k_interactions
  RETURN collect({item: node {.id, .tenant, .user_id, .session_id, .speaker, .text, .occurred_at,
                              .seq, .consolidated, .source_ref, .consolidated_at},
                  score: score}) AS interactions_lexical
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
  RETURN collect({item: n {.id, .tenant, .user_id, .title, .summary, .version, .first_at, .last_at,
                           .created_at, .current, .valid_from, .superseded_at},
                  score: score}) AS episodes_dense
}
CALL () {
  WITH $k_episodes AS k WHERE k > 0 AND $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('episode_summary', $lucene, {limit: k * 4}) YIELD node, score
  WITH node, score
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.current = true
  WITH node, score ORDER BY score DESC LIMIT $k_episodes
  RETURN collect({item: node {.id, .tenant, .user_id, .title, .summary, .version, .first_at,
                              .last_at, .created_at, .current, .valid_from, .superseded_at},
                  score: score}) AS episodes_lexical
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
  RETURN collect({item: n {.id, .tenant, .user_id, .text, .kind, .status, .valid_from, .valid_to,
                           .created_at}, score: score}) AS facts_dense
}
CALL () {
  WITH $k_facts AS k WHERE k > 0 AND $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('fact_text', $lucene, {limit: k * 4}) YIELD node, score
  WITH node, score
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.status = 'active'
  WITH node, score ORDER BY score DESC LIMIT $k_facts
  RETURN collect({item: node {.id, .tenant, .user_id, .text, .kind, .status, .valid_from, .valid_to,
                              .created_at}, score: score}) AS facts_lexical
}
CALL (episodes_dense, episodes_lexical) {
  UNWIND episodes_dense + episodes_lexical AS hit
  WITH DISTINCT hit.item.id AS id
  MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: id})-[d:DERIVED_FROM]->(i:Interaction)
  WITH id, i, d ORDER BY i.seq
  WITH id, collect({id: i.id, similarity: d.similarity}) AS sources
  RETURN collect({id: id, sources: sources}) AS episode_sources
}
CALL (facts_dense, facts_lexical) {
  UNWIND facts_dense + facts_lexical AS hit
  WITH DISTINCT hit.item.id AS id
  MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: id})
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
  WITH f, id, collect(DISTINCT e.id) AS episode_ids
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
  WITH id, episode_ids, collect(DISTINCT i.id) AS interaction_ids
  RETURN collect({id: id, episode_ids: episode_ids, interaction_ids: interaction_ids}) AS fact_sources
}
RETURN interactions_dense, interactions_lexical, episodes_dense, episodes_lexical,
       facts_dense, facts_lexical, episode_sources, fact_sources
