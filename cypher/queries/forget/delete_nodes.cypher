// Erases nodes of one label (chosen in code from a fixed set) by id, with all their edges; the
// user's lexical statistics of the layer ($stat, chosen in code; null: none) stop counting them.
CYPHER 25
UNWIND $ids AS node_id
MATCH (n:$($label) {id: node_id})
WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH collect(n) AS nodes
// A new vector epoch: recall's vector cache (graph/vector_cache.py) reloads the user's vectors,
// as it learns only of nodes added since it read them.
CALL (nodes) {
  WITH nodes WHERE size(nodes) > 0
  MATCH (u:User {tenant: $tenant, id: $user_id})
  SET u.vectors_epoch = randomUUID()
}
CALL (nodes) {
  WITH nodes WHERE $stat IS NOT NULL AND size(nodes) > 0
  MATCH (u:User {tenant: $tenant, id: $user_id})
  SET u[$stat] = u[$stat] - size(nodes),
      u[$stat + '_length'] = u[$stat + '_length'] - reduce(s = 0, n IN nodes | s + coalesce(n.lex_length, 0))
}
FOREACH (n IN nodes | DETACH DELETE n)
RETURN size(nodes) AS erased
