// A pool of $candidates nearest interactions of one user from the vector index, of which the $k
// most similar are returned with exact plain cosine. $consolidated lists the states searched:
// [false] for the subconscious layer only, [false, true] for all. The filter runs inside the
// index, so the search returns k hits whenever the user has k candidates.
CYPHER 25
MATCH (n:Interaction)
  SEARCH n IN (
    VECTOR INDEX interaction_embedding
    FOR $vector
    WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.consolidated IN $consolidated
    LIMIT $candidates
  ) SCORE AS similarity
WITH n ORDER BY similarity DESC LIMIT $k
// Named properties, not n {.*}: that would read each hit's embedding only to drop it.
RETURN n {.id, .tenant, .user_id, .session_id, .speaker, .text, .occurred_at, .seq, .consolidated,
          .source_ref, .consolidated_at, .agent_id, .metadata, .utc_offset_s} AS interaction,
       2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
