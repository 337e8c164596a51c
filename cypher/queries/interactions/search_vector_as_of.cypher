// Memory as it stood at $as_of: interactions that had occurred, optionally only those not yet
// consolidated then. An exact scan of the user's interactions: time filters are not in the index.
// A filter (the $f_* parameters, graph/scopes.py; null: none) applies inside the scan.
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
WHERE n.occurred_at <= $as_of
  AND ($include_consolidated OR n.consolidated_at IS NULL OR n.consolidated_at > $as_of)
  AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
  AND ($f_since IS NULL OR n.occurred_at >= $f_since) AND ($f_until IS NULL OR n.occurred_at < $f_until)
WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $k
RETURN n {.*, embedding: null} AS interaction, score
