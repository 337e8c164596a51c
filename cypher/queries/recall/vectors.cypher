// The user's vectors for recall's vector cache (graph/vector_cache.py): per layer, every node's id
// and vector (float32, one byte string each over Bolt), whatever its state; with $since, only the
// nodes whose vector number is above it (an index seek), else every node of the user. The cache
// counts the user's vectors first (recall/vector_count.cypher), so a node written meanwhile can
// come back once too often (the cache keeps the last), never be missed; the epoch returned tells
// it whether vectors changed or went in between.
CYPHER 25
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
WITH coalesce(u.vectors_epoch, '') AS epoch
CALL () {
  CALL () {
    WHEN $since IS NULL THEN {
      MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
      RETURN n
    }
    ELSE {
      MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
      WHERE n.vector_no > $since
      RETURN n
    }
  }
  RETURN collect([n.id, vector(n.embedding, $dimension, FLOAT32)]) AS interactions
}
CALL () {
  CALL () {
    WHEN $since IS NULL THEN {
      MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
      RETURN n
    }
    ELSE {
      MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
      WHERE n.vector_no > $since
      RETURN n
    }
  }
  RETURN collect([n.id, vector(n.embedding, $dimension, FLOAT32)]) AS episodes
}
CALL () {
  CALL () {
    WHEN $since IS NULL THEN {
      MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
      RETURN n
    }
    ELSE {
      MATCH (n:Fact {tenant: $tenant, user_id: $user_id})
      WHERE n.vector_no > $since
      RETURN n
    }
  }
  RETURN collect([n.id, vector(n.embedding, $dimension, FLOAT32)]) AS facts
}
RETURN epoch, interactions, episodes, facts
