// A user's consolidation runs in reverse time order, before a cursor.
// Keyset pagination on (key, id): the cursor holds the last key and id seen, so pages stay stable
// while new memory arrives. Every filter is a parameter; a null parameter disables its filter.
// The key is the instant at offset +00:00, compared as a datetime (graph/browse.py turns it into
// the cursor's nanoseconds): epoch nanoseconds overflow in Cypher before 1677 and after 2262. The
// offset, not the zone id 'UTC': a datetime in a zone id compares unequal to the cursor's.
MATCH (n:ConsolidationRun {tenant: $tenant, user_id: $user_id})
WITH n, datetime({datetime: n.at, timezone: '+00:00'}) AS key
WHERE ($after_key IS NULL OR key > $after_key OR (key = $after_key AND n.id > $after_id))
  AND ($before_key IS NULL OR key < $before_key OR (key = $before_key AND n.id < $before_id))
  AND ($since IS NULL OR n.at >= $since)
  AND ($until IS NULL OR n.at < $until)
  AND ($op IS NULL OR n.op = $op)
RETURN n {.*, embedding: null} AS node, key
ORDER BY key DESC, n.id DESC
LIMIT $limit
