// Facts in force at $as_of, in valid time (valid_from / valid_to from the conversation's own dates;
// a correction or retraction closes valid_to when it was made, so earlier instants still see it).
// A filter (the $f_* parameters, graph/scopes.py; null: none) applies inside the scan.
MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
WHERE n.valid_from <= $as_of
  AND (n.valid_to IS NULL OR n.valid_to > $as_of)
  AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes))) AND ($f_kinds IS NULL OR n.kind IN $f_kinds)
  AND ($f_since IS NULL OR n.valid_from >= $f_since) AND ($f_until IS NULL OR n.valid_from < $f_until)
  AND ($f_valid_since IS NULL OR n.valid_from >= $f_valid_since)
  AND ($f_valid_until IS NULL OR n.valid_from < $f_valid_until)
WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN n {.*, embedding: null} AS fact, score
