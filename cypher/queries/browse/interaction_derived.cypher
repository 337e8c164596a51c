// What memory made from each interaction: the episode versions and the facts derived from it.
MATCH (i:Interaction)
WHERE i.id IN $ids AND i.tenant = $tenant
CALL (i) {
  OPTIONAL MATCH (e:Episode)-[:DERIVED_FROM]->(i)
  WHERE e.tenant = $tenant AND e.user_id = i.user_id
  WITH e ORDER BY e.valid_from, e.version
  RETURN collect(e {.*, embedding: null}) AS episodes
}
CALL (i) {
  OPTIONAL MATCH (f:Fact)-[:DERIVED_FROM]->(i)
  WHERE f.tenant = $tenant AND f.user_id = i.user_id
  WITH f ORDER BY f.valid_from
  RETURN collect(f {.*, embedding: null}) AS facts
}
RETURN i.id AS anchor, episodes, facts
