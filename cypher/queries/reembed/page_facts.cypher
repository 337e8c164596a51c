// The next page of facts (every status) whose vector was not made for the target (`$key`), in id
// order after `$after`. A fact is embedded from its text.
MATCH (n:Fact)
WHERE n.id > $after AND coalesce(n.embedding_key, '') <> $key AND n.text IS NOT NULL
  AND NOT n:Erased AND ($tenant IS NULL OR n.tenant = $tenant)
RETURN n.id AS id, n.text AS text
ORDER BY n.id
LIMIT $limit
