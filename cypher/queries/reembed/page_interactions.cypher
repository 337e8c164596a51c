// The next page of interactions whose vector was not made for the target (`$key`), in id order
// after `$after` (the id index serves the order, so a page costs what it returns). What the
// template renders comes with it, the time with the offset it was said in. The same filter as
// remaining.cypher.
MATCH (n:Interaction)
WHERE n.id > $after AND coalesce(n.embedding_key, '') <> $key AND n.text IS NOT NULL
  AND NOT n:Erased AND ($tenant IS NULL OR n.tenant = $tenant)
RETURN n.id AS id, n.text AS text, n.speaker AS speaker, toString(n.occurred_at) AS occurred_at,
       n.utc_offset_s AS utc_offset_s
ORDER BY n.id
LIMIT $limit
