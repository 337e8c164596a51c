// One recall's lexical candidates from all three layers, in one round trip: full-text hits, best
// first; $lucene is already restricted to the user's key. A budget of 0 skips its layer.
// Instants come back as ISO strings: the driver's temporal decoding is slow Python.
CYPHER 25
CALL () {
  WITH $k_interactions AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('interaction_text', $lucene, {limit: k * 4}) YIELD node, score
  WITH node, score
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.consolidated IN $consolidated
  WITH node, score ORDER BY score DESC LIMIT $k_interactions
  RETURN collect({item: node {.id, .tenant, .user_id, .session_id, .speaker, .text, .seq, .consolidated,
                              .source_ref, occurred_at: toString(node.occurred_at),
                              consolidated_at: toString(node.consolidated_at)},
                  score: score}) AS interactions_lexical
}
CALL () {
  WITH $k_episodes AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('episode_summary', $lucene, {limit: k * 4}) YIELD node, score
  WITH node, score
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.current = true
  WITH node, score ORDER BY score DESC LIMIT $k_episodes
  RETURN collect({item: node {.id, .tenant, .user_id, .title, .summary, .version, .current,
                              first_at: toString(node.first_at), last_at: toString(node.last_at),
                              created_at: toString(node.created_at), valid_from: toString(node.valid_from),
                              superseded_at: toString(node.superseded_at)},
                  score: score}) AS episodes_lexical
}
CALL () {
  WITH $k_facts AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('fact_text', $lucene, {limit: k * 4}) YIELD node, score
  WITH node, score
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.status = 'active'
  WITH node, score ORDER BY score DESC LIMIT $k_facts
  RETURN collect({item: node {.id, .tenant, .user_id, .text, .kind, .status,
                              valid_from: toString(node.valid_from), valid_to: toString(node.valid_to),
                              created_at: toString(node.created_at)},
                  score: score}) AS facts_lexical
}
RETURN interactions_lexical, episodes_lexical, facts_lexical
