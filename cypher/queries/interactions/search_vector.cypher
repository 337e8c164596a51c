// Per-user nearest interactions, filtered inside the vector index (tenant and user_id are stored in
// it, so a user with k interactions always gets k hits). A beam of only k finds about half of the
// true top k, so the index returns a wider pool of $candidates (sized by InteractionStore.search)
// and the k best of the pool are kept. The index score is (1 + cos) / 2; plain cosine is recomputed
// from the stored vector for the k kept, so the scores stay exact whatever the index config.
CYPHER 25
MATCH (n:Interaction)
  SEARCH n IN (
    VECTOR INDEX interaction_embedding
    FOR $vector
    WHERE n.tenant = $tenant AND n.user_id = $user_id
    LIMIT $candidates
  ) SCORE AS similarity
WITH n ORDER BY similarity DESC LIMIT $k
RETURN n {.*, embedding: null} AS interaction,
       2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
