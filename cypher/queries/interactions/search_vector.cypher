// Per-user nearest interactions, filtered inside the vector index. The index score is
// (1 + cos) / 2 on possibly quantized vectors, so the exact plain cosine is recomputed for the k hits.
CYPHER 25
MATCH (n:Interaction)
  SEARCH n IN (
    VECTOR INDEX interaction_embedding
    FOR $vector
    WHERE n.tenant = $tenant AND n.user_id = $user_id
    LIMIT $k
  )
RETURN n {.*, embedding: null} AS interaction,
       2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
