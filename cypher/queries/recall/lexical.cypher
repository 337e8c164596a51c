// One recall's lexical candidates from all three layers, in one round trip: per layer, every
// searched item of the user that holds a query word (no limit: the full-text index's own scores
// count every tenant's text, so they neither rank nor cut), and how many items are searched.
// graph/lexical.py scores them by BM25 over the user's items alone. $lucene is already
// restricted to the user's key. A budget of 0 skips its layer.
// Instants come back as ISO strings: the driver's temporal decoding is slow Python.
CYPHER 25
CALL () {
  WITH $k_interactions AS k WHERE k > 0
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  WHERE n.consolidated IN $consolidated
  RETURN count(n) AS interactions_searched
}
CALL () {
  WITH $k_interactions AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('interaction_text', $lucene) YIELD node
  WITH node
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.consolidated IN $consolidated
  RETURN collect(node {.id, .tenant, .user_id, .session_id, .speaker, .text, .seq, .consolidated,
                       .source_ref, occurred_at: toString(node.occurred_at),
                       consolidated_at: toString(node.consolidated_at)}) AS interactions_lexical
}
CALL () {
  WITH $k_episodes AS k WHERE k > 0
  MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
  WHERE n.current = true
  RETURN count(n) AS episodes_searched
}
CALL () {
  WITH $k_episodes AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('episode_summary', $lucene) YIELD node
  WITH node
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.current = true
  RETURN collect(node {.id, .tenant, .user_id, .title, .summary, .version, .current,
                       first_at: toString(node.first_at), last_at: toString(node.last_at),
                       created_at: toString(node.created_at), valid_from: toString(node.valid_from),
                       superseded_at: toString(node.superseded_at)}) AS episodes_lexical
}
CALL () {
  WITH $k_facts AS k WHERE k > 0
  MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
  WHERE n.status = 'active'
  RETURN count(n) AS facts_searched
}
CALL () {
  WITH $k_facts AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('fact_text', $lucene) YIELD node
  WITH node
  WHERE node.tenant = $tenant AND node.user_id = $user_id AND node.status = 'active'
  RETURN collect(node {.id, .tenant, .user_id, .text, .kind, .status,
                       valid_from: toString(node.valid_from), valid_to: toString(node.valid_to),
                       created_at: toString(node.created_at)}) AS facts_lexical
}
RETURN interactions_searched, interactions_lexical, episodes_searched, episodes_lexical,
       facts_searched, facts_lexical
