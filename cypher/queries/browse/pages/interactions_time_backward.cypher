// A user's interactions in reverse time order (occurred_at, then seq), newest first, before
// a cursor.
// Keyset pagination on (key, seq): the cursor holds the last key and the id of the interaction
// seen last, whose seq breaks ties (a cursor whose interaction was erased meanwhile resumes after
// its key). Every filter is a parameter; a null parameter disables its filter (the $f_* ones: a
// recall filter, graph/scopes.py).
// The key is the instant at offset +00:00, compared as a datetime (graph/browse.py turns it into
// the cursor's nanoseconds): epoch nanoseconds overflow in Cypher before 1677 and after 2262. The
// offset, not the zone id 'UTC': a datetime in a zone id compares unequal to the cursor's.
OPTIONAL MATCH (a:Interaction {tenant: $tenant, user_id: $user_id, id: $after_id})
OPTIONAL MATCH (b:Interaction {tenant: $tenant, user_id: $user_id, id: $before_id})
WITH a.seq AS after_seq, b.seq AS before_seq
MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
WITH n, datetime({datetime: n.occurred_at, timezone: '+00:00'}) AS key, after_seq, before_seq
WHERE ($after_key IS NULL OR key > $after_key
       OR (key = $after_key AND after_seq IS NOT NULL AND n.seq > after_seq))
  AND ($before_key IS NULL OR key < $before_key
       OR (key = $before_key AND before_seq IS NOT NULL AND n.seq < before_seq))
  AND ($since IS NULL OR n.occurred_at >= $since)
  AND ($until IS NULL OR n.occurred_at < $until)
  AND ($consolidated IS NULL OR n.consolidated = $consolidated)
  AND ($session_id IS NULL OR n.session_id = $session_id)
  AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes)))
  AND ($f_since IS NULL OR n.occurred_at >= $f_since) AND ($f_until IS NULL OR n.occurred_at < $f_until)
RETURN n {.*, embedding: null} AS node, key
ORDER BY key DESC, n.seq DESC
LIMIT $limit
