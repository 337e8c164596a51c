// How many nodes of the labels (chosen in code) the user owns that are not among `$ids`: an
// import goes only into a user that holds nothing but what the file itself holds.
CYPHER 25
UNWIND $labels AS label
CALL (label) {
  MATCH (n:$(label) {tenant: $tenant, user_id: $user_id})
  WHERE n.id IS NOT NULL AND NOT n.id IN $ids
  RETURN count(n) AS others
}
RETURN sum(others) AS others
