// What each fact was derived from: episode versions and the exact interactions that state it.
MATCH (f:Fact)
WHERE f.id IN $ids AND f.tenant = $tenant
CALL (f) {
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(e:Episode)
  WHERE e.tenant = $tenant AND e.user_id = f.user_id
  WITH e ORDER BY e.valid_from
  RETURN collect(e {.*, embedding: null}) AS episodes
}
CALL (f) {
  OPTIONAL MATCH (f)-[:DERIVED_FROM]->(i:Interaction)
  WHERE i.tenant = $tenant AND i.user_id = f.user_id
  WITH i ORDER BY i.seq
  RETURN collect(i {.*, embedding: null}) AS interactions
}
RETURN f.id AS anchor, episodes, interactions
