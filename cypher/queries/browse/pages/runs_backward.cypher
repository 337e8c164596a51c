// A user's consolidation runs in reverse time order, before a cursor.
// Keyset pagination on (key, id): the cursor holds the last key and id seen, so pages stay stable
// while new memory arrives. Every filter is a parameter; a null parameter disables its filter.
MATCH (n:ConsolidationRun {tenant: $tenant, user_id: $user_id})
WITH n, n.at.epochSeconds * 1000000000 + n.at.nanosecond AS key
WHERE ($after_key IS NULL OR key > $after_key OR (key = $after_key AND n.id > $after_id))
  AND ($before_key IS NULL OR key < $before_key OR (key = $before_key AND n.id < $before_id))
  AND ($since IS NULL OR n.at >= $since)
  AND ($until IS NULL OR n.at < $until)
  AND ($op IS NULL OR n.op = $op)
RETURN n {.*, embedding: null} AS node, key
ORDER BY key DESC, n.id DESC
LIMIT $limit
