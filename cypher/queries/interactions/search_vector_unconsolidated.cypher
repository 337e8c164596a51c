// As search_vector, restricted to interactions not yet consolidated (the subconscious layer).
CYPHER 25
MATCH (n:Interaction)
  SEARCH n IN (
    VECTOR INDEX interaction_embedding
    FOR $vector
    WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.consolidated = false
    LIMIT $k
  )
RETURN n {.*, embedding: null} AS interaction,
       2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
