// What each consolidation run read and produced, as (label, id) pairs.
MATCH (r:ConsolidationRun)
WHERE r.id IN $ids AND r.tenant = $tenant
CALL (r) {
  OPTIONAL MATCH (r)-[:READ]->(n)
  WHERE n.tenant = $tenant AND n.user_id = r.user_id
  RETURN collect(n.id) AS read
}
CALL (r) {
  OPTIONAL MATCH (r)-[:PRODUCED]->(n)
  WHERE n.tenant = $tenant AND n.user_id = r.user_id
  RETURN collect(n.id) AS produced
}
RETURN r.id AS anchor, read, produced
