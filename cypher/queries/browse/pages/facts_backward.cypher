// A user's facts in reverse valid-time order, before a cursor.
// Keyset pagination on (key, id): the cursor holds the last key and id seen, so pages stay stable
// while new memory arrives. Every filter is a parameter; a null parameter disables its filter
// (the $f_* ones: a recall filter, graph/scopes.py).
// The key is the instant at offset +00:00, compared as a datetime (graph/browse.py turns it into
// the cursor's nanoseconds): epoch nanoseconds overflow in Cypher before 1677 and after 2262. The
// offset, not the zone id 'UTC': a datetime in a zone id compares unequal to the cursor's.
MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
WITH n, datetime({datetime: n.valid_from, timezone: '+00:00'}) AS key
WHERE ($after_key IS NULL OR key > $after_key OR (key = $after_key AND n.id > $after_id))
  AND ($before_key IS NULL OR key < $before_key OR (key = $before_key AND n.id < $before_id))
  AND ($since IS NULL OR n.valid_from >= $since)
  AND ($until IS NULL OR n.valid_from < $until)
  AND ($status IS NULL OR n.status = $status)
  AND ($kind IS NULL OR n.kind = $kind)
  AND ($as_of IS NULL OR (n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of)))
  AND ($f_scopes IS NULL OR all(g IN $f_scopes WHERE any(t IN g WHERE t IN n.scopes))) AND ($f_kinds IS NULL OR n.kind IN $f_kinds)
  AND ($f_since IS NULL OR n.valid_from >= $f_since) AND ($f_until IS NULL OR n.valid_from < $f_until)
  AND ($f_valid_since IS NULL OR n.valid_from >= $f_valid_since)
  AND ($f_valid_until IS NULL OR n.valid_from < $f_valid_until)
RETURN n {.*, embedding: null} AS node, key
ORDER BY key DESC, n.id DESC
LIMIT $limit
