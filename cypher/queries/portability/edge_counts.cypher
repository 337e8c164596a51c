// How many edges of each type run from one user's nodes (labels chosen in code) to other nodes of
// the same user, one per type and pair as the export writes them: the header's edge counts.
CYPHER 25
UNWIND $labels AS label
CALL (label) {
  MATCH (a:$(label) {tenant: $tenant, user_id: $user_id})-[r]->(b)
  WHERE a.id IS NOT NULL AND none(l IN labels(a) WHERE l < label AND NOT l IN $reserved)
    AND b.tenant = $tenant AND b.user_id = $user_id AND b.id IS NOT NULL
    AND NOT b:User AND NOT b:Erased
  WITH DISTINCT type(r) AS type, a.id AS source, b.id AS target
  RETURN type, count(*) AS edges
}
RETURN type, sum(edges) AS edges
