// Per-user nearest current episode versions, filtered inside the vector index; exact plain cosine.
CYPHER 25
MATCH (n:Episode)
  SEARCH n IN (
    VECTOR INDEX episode_embedding
    FOR $vector
    WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.current = true
    LIMIT $k
  )
RETURN n {.*, embedding: null} AS episode,
       2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
