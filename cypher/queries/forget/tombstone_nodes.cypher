// Erases nodes of one label by id without removing them from their vector index.
// Why: on Neo4j 2026.08, a quantized vector index with filter properties (`WITH [n.tenant, ...]`)
// breaks for good (every filtered SEARCH fails with "Index ... out of bounds") once a node whose
// filter property was ever updated (consolidated, current, status) leaves the index. So such nodes
// are emptied instead: every edge and property goes, the vector becomes a constant, the node
// belongs to no tenant and gets the Erased label. Nothing of the forgotten content remains.
// The user's lexical statistics of the layer ($stat, chosen in code; null: none) stop counting them.
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
UNWIND nodes AS n
CALL (n) {
  MATCH (n)-[r]-()
  DELETE r
}
SET n = {id: 'erased_' + randomUUID(), tenant: '', user_id: '', erased: true}
SET n:Erased
WITH n
CALL db.create.setNodeVectorProperty(n, 'embedding', $neutral)
RETURN count(n) AS erased
