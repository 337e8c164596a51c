// One recall's lexical candidates from all three layers, in one round trip: per layer, every item
// of the user that holds a query word, whatever its state, each marked `searched` when this
// recall may return it (no limit: the full-text index's own scores count every tenant's text, so
// they neither rank nor cut), and the user's statistics of the layer as kept at write time (items
// and their words); for a user from before those statistics, a count of the items instead.
// graph/lexical.py scores them by BM25 over the user's items alone. The count runs only when
// needed: a WHEN branch, since a filter in front of a MATCH may be planned after its index seek.
// A filter (the $f_* parameters, graph/scopes.py) narrows `searched`, never the statistics.
// $lucene is already restricted to the user's key. A budget of 0 skips its layer.
// Which of $names are speakers of the user's turns comes back too (as recall/speakers.cypher,
// one index seek each): they decide which of the candidates' words score, and so cost no
// round trip of their own (consolidation/recall/names.py).
// Instants come back as ISO strings: the driver's temporal decoding is slow Python.
CYPHER 25
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
CALL () {
  UNWIND $names AS name
  CALL (name) {
    MATCH (n:Interaction {tenant: $tenant, user_id: $user_id, speaker: name})
    RETURN n.speaker AS speaker
    LIMIT 1
  }
  RETURN collect(DISTINCT speaker) AS speakers
}
CALL (u) {
  WHEN $k_interactions > 0 AND u.lex_interactions IS NULL THEN {
    MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
    RETURN count(n) AS interactions_counted
  }
  ELSE RETURN null AS interactions_counted
}
CALL () {
  WITH $k_interactions AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('interaction_text', $lucene) YIELD node
  WITH node
  WHERE node.tenant = $tenant AND node.user_id = $user_id
  RETURN collect(node {searched: coalesce(node.consolidated IN $consolidated
                         AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN node.scopes)))
      AND ($f_since IS NULL OR node.occurred_at >= $f_since) AND ($f_until IS NULL OR node.occurred_at < $f_until), false),
                       .id, .tenant, .user_id, .session_id, .speaker, .text, .seq, .consolidated,
                       .source_ref, .agent_id, .metadata, .utc_offset_s, occurred_at: toString(node.occurred_at),
                       consolidated_at: toString(node.consolidated_at)}) AS interactions_lexical
}
CALL (u) {
  WHEN $k_episodes > 0 AND u.lex_episodes IS NULL THEN {
    MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
    RETURN count(n) AS episodes_counted
  }
  ELSE RETURN null AS episodes_counted
}
CALL () {
  WITH $k_episodes AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('episode_summary', $lucene) YIELD node
  WITH node
  WHERE node.tenant = $tenant AND node.user_id = $user_id
  RETURN collect(node {searched: coalesce(node.current = true
                         AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN node.scopes)))
      AND ($f_since IS NULL OR node.last_at >= $f_since) AND ($f_until IS NULL OR node.first_at < $f_until), false),
                       .id, .tenant, .user_id, .title, .summary, .version, .current,
                       first_at: toString(node.first_at), last_at: toString(node.last_at),
                       created_at: toString(node.created_at), valid_from: toString(node.valid_from),
                       superseded_at: toString(node.superseded_at), .scopes}) AS episodes_lexical
}
CALL (u) {
  WHEN $k_facts > 0 AND u.lex_facts IS NULL THEN {
    MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
    RETURN count(n) AS facts_counted
  }
  ELSE RETURN null AS facts_counted
}
CALL () {
  WITH $k_facts AS k WHERE k > 0
  CALL db.index.fulltext.queryNodes('fact_text', $lucene) YIELD node
  WITH node
  WHERE node.tenant = $tenant AND node.user_id = $user_id
  RETURN collect(node {searched: coalesce(node.status = 'active'
                         AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN node.scopes))) AND ($f_kinds IS NULL OR node.kind IN $f_kinds)
      AND ($f_since IS NULL OR node.valid_from >= $f_since) AND ($f_until IS NULL OR node.valid_from < $f_until)
      AND ($f_valid_since IS NULL OR node.valid_from >= $f_valid_since)
      AND ($f_valid_until IS NULL OR node.valid_from < $f_valid_until), false),
                       .id, .tenant, .user_id, .text, .kind, .status,
                       valid_from: toString(node.valid_from), valid_to: toString(node.valid_to),
                       created_at: toString(node.created_at), .scopes}) AS facts_lexical
}
RETURN speakers, coalesce(u.lex_interactions, interactions_counted) AS interactions_held,
       u.lex_interactions_length AS interactions_length, interactions_lexical,
       coalesce(u.lex_episodes, episodes_counted) AS episodes_held,
       u.lex_episodes_length AS episodes_length, episodes_lexical,
       coalesce(u.lex_facts, facts_counted) AS facts_held, u.lex_facts_length AS facts_length, facts_lexical
