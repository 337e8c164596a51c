// Per-user nearest active facts, filtered inside the vector index; exact plain cosine.
CYPHER 25
MATCH (n:Fact)
  SEARCH n IN (
    VECTOR INDEX fact_embedding
    FOR $vector
    WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.status = 'active'
    LIMIT $k
  )
RETURN n {.*, embedding: null} AS fact,
       2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
