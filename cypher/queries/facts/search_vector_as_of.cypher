// Facts in force at $as_of, in valid time (valid_from / valid_to from the conversation's own dates;
// a correction or retraction closes valid_to when it was made, so earlier instants still see it).
MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
WHERE n.valid_from <= $as_of
  AND (n.valid_to IS NULL OR n.valid_to > $as_of)
WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN n {.*, embedding: null} AS fact, score
