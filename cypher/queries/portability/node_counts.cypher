// How many nodes of each label (chosen in code from the database's labels) one user owns: the
// export's header counts, read before its lines. A node of several labels counts under the first
// (in name order) that is not reserved, as nodes.cypher reads it.
CYPHER 25
UNWIND $labels AS label
CALL (label) {
  MATCH (n:$(label) {tenant: $tenant, user_id: $user_id})
  WHERE n.id IS NOT NULL AND none(l IN labels(n) WHERE l < label AND NOT l IN $reserved)
  RETURN count(n) AS nodes
}
RETURN label, nodes
