// How many nodes of each label (chosen in code from a fixed set) one user owns: what forgetting
// the user would erase, counted over the same nodes erase_user collects with owned_ids.
CYPHER 25
UNWIND $labels AS label
CALL (label) {
  MATCH (n:$(label) {tenant: $tenant, user_id: $user_id})
  RETURN count(n) AS nodes
}
RETURN label, nodes
