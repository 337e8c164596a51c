// The next page of episode versions (every version, current or not) whose vector was not made
// for the target (`$key`), in id order after `$after`. An episode is embedded from its summary.
MATCH (n:Episode)
WHERE n.id > $after AND coalesce(n.embedding_key, '') <> $key AND n.summary IS NOT NULL
  AND NOT n:Erased AND ($tenant IS NULL OR n.tenant = $tenant)
RETURN n.id AS id, n.summary AS text
ORDER BY n.id
LIMIT $limit
