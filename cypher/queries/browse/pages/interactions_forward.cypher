// A user's interactions in stream order (seq), oldest first, after a cursor.
// Keyset pagination on (key, id): the cursor holds the last key and id seen, so pages stay stable
// while new memory arrives. Every filter is a parameter; a null parameter disables its filter
// (the $f_* ones: a recall filter, graph/scopes.py).
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
WITH n, n.seq AS key
WHERE ($after_key IS NULL OR key > $after_key OR (key = $after_key AND n.id > $after_id))
  AND ($before_key IS NULL OR key < $before_key OR (key = $before_key AND n.id < $before_id))
  AND ($since IS NULL OR n.occurred_at >= $since)
  AND ($until IS NULL OR n.occurred_at < $until)
  AND ($consolidated IS NULL OR n.consolidated = $consolidated)
  AND ($session_id IS NULL OR n.session_id = $session_id)
  AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
  AND ($f_since IS NULL OR n.occurred_at >= $f_since) AND ($f_until IS NULL OR n.occurred_at < $f_until)
RETURN n {.*, embedding: null} AS node, key
ORDER BY key ASC, n.id ASC
LIMIT $limit
