// How many nodes of each layer still hold a vector not made for the target (`$key`). `$tenant`
// narrows the count to one tenant (tests share one database); null counts every tenant. Erased
// tombstones (see forget/tombstone_nodes.cypher) hold no text and are left as they are.
CALL () {
  MATCH (n:Interaction)
  WHERE coalesce(n.embedding_key, '') <> $key AND n.text IS NOT NULL AND NOT n:Erased
    AND ($tenant IS NULL OR n.tenant = $tenant)
  RETURN count(n) AS interactions
}
CALL () {
  MATCH (n:Episode)
  WHERE coalesce(n.embedding_key, '') <> $key AND n.summary IS NOT NULL AND NOT n:Erased
    AND ($tenant IS NULL OR n.tenant = $tenant)
  RETURN count(n) AS episodes
}
CALL () {
  MATCH (n:Fact)
  WHERE coalesce(n.embedding_key, '') <> $key AND n.text IS NOT NULL AND NOT n:Erased
    AND ($tenant IS NULL OR n.tenant = $tenant)
  RETURN count(n) AS facts
}
RETURN interactions, episodes, facts
