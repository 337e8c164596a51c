// One page of the user's vectors in one layer ($layer) for recall's vector cache
// (graph/vector_cache.py): up to $page nodes whose id is above $after, in id order, each node's id
// and vector (float32, one byte string each over Bolt), whatever its state; with $since, only the
// nodes whose vector number is above it (an index seek), else every node of the layer. `last` is
// the page's highest id (the next page's $after). The cache counts the user's vectors first
// (recall/vector_count.cypher), so a node written meanwhile can come back once too often (the
// cache keeps the last), never be missed; the epoch returned tells it whether vectors changed or
// went in between. Each layer is a branch of its own: Neo4j 2026.08 plans a dynamic label
// (`n:$($label)`) as a scan of the label's nodes, where each branch seeks the owner index. Each
// seek is pinned: on a fresh database's statistics Neo4j seeks the id index above $after, every
// tenant's nodes, or the owner index for the nodes above $since.
CYPHER 25
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
WITH coalesce(u.vectors_epoch, '') AS epoch
CALL () {
  CALL () {
    WHEN $layer = 'interactions' AND $since IS NULL THEN {
      MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Interaction(tenant, user_id)
      WHERE n.id > $after
      RETURN n ORDER BY n.id LIMIT $page
    }
    WHEN $layer = 'interactions' THEN {
      MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Interaction(tenant, user_id, vector_no)
      WHERE n.vector_no > $since AND n.id > $after
      RETURN n ORDER BY n.id LIMIT $page
    }
    WHEN $layer = 'episodes' AND $since IS NULL THEN {
      MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Episode(tenant, user_id)
      WHERE n.id > $after
      RETURN n ORDER BY n.id LIMIT $page
    }
    WHEN $layer = 'episodes' THEN {
      MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Episode(tenant, user_id, vector_no)
      WHERE n.vector_no > $since AND n.id > $after
      RETURN n ORDER BY n.id LIMIT $page
    }
    WHEN $layer = 'facts' AND $since IS NULL THEN {
      MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Fact(tenant, user_id)
      WHERE n.id > $after
      RETURN n ORDER BY n.id LIMIT $page
    }
    ELSE {
      MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
      USING INDEX SEEK n:Fact(tenant, user_id, vector_no)
      WHERE n.vector_no > $since AND n.id > $after
      RETURN n ORDER BY n.id LIMIT $page
    }
  }
  RETURN collect([n.id, vector(n.embedding, $dimension, FLOAT32)]) AS vectors, max(n.id) AS last
}
RETURN epoch, vectors, last
