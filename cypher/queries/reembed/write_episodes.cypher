// Stores a page's new vectors (float32 VECTOR parameters) and marks each node with the target's
// key, in one transaction. A node whose summary changed since its page was read (a forget rebuilt
// it) is left alone, unmarked: the next pass embeds what it says now, and no vector of erased
// text is written. A node that is gone is skipped.
CYPHER 25
UNWIND $rows AS r
MATCH (n:Episode {id: r.id})
WHERE n.summary = r.text
CALL db.create.setNodeVectorProperty(n, 'embedding', toFloatList(r.embedding))
SET n.embedding_key = $key
// A new vector epoch: recall's vector cache (graph/vector_cache.py) reloads the owners' vectors,
// as it learns only of nodes added since it read them.
WITH collect(n) AS written
CALL (written) {
  UNWIND written AS n
  WITH DISTINCT n.tenant AS tenant, n.user_id AS user_id
  MATCH (u:User {tenant: tenant, id: user_id})
  SET u.vectors_epoch = randomUUID()
}
RETURN size(written) AS written
