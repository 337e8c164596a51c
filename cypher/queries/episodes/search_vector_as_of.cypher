// Episode versions that were current at $as_of, in valid time: the conversation had reached
// them and no later version had replaced them yet.
// A filter (the $f_* parameters, graph/scopes.py; null: none) applies inside the scan.
MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
WHERE n.valid_from <= $as_of AND (n.superseded_at IS NULL OR n.superseded_at > $as_of)
  AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
  AND ($f_since IS NULL OR n.last_at >= $f_since) AND ($f_until IS NULL OR n.first_at < $f_until)
WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN n {.*, embedding: null} AS episode, score
