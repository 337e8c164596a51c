// Facts that were valid at $as_of: known by then (created_at), in force then (valid_from/valid_to).
MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
WHERE n.created_at <= $as_of AND n.valid_from <= $as_of
  AND (n.valid_to IS NULL OR n.valid_to > $as_of) AND n.status <> 'retracted'
WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN n {.*, embedding: null} AS fact, score
