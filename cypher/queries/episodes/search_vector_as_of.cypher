// Episode versions that were current at $as_of, in valid time: the conversation had reached
// them and no later version had replaced them yet.
MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
WHERE n.valid_from <= $as_of AND (n.superseded_at IS NULL OR n.superseded_at > $as_of)
WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN n {.*, embedding: null} AS episode, score
