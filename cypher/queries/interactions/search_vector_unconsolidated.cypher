// As search_vector (a pool of $candidates from the index, the k best kept, exact plain cosine),
// restricted to interactions not yet consolidated (the subconscious layer). The consolidated flag
// is stored in the index, so the filter still runs inside it: k hits whenever k candidates exist.
CYPHER 25
MATCH (n:Interaction)
  SEARCH n IN (
    VECTOR INDEX interaction_embedding
    FOR $vector
    WHERE n.tenant = $tenant AND n.user_id = $user_id AND n.consolidated = false
    LIMIT $candidates
  ) SCORE AS similarity
WITH n ORDER BY similarity DESC LIMIT $k
RETURN n {.*, embedding: null} AS interaction,
       2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
