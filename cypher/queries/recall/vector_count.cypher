// The user's vector count and epoch for recall's vector cache (graph/vector_cache.py), counted
// under the user's lock, as every statement that numbers vectors takes it: once it is held, each
// statement that numbered up to the count has committed in full, so recall/vectors.cypher, run
// next, sees all of their nodes. No row for a user not (or no longer) in the graph.
CYPHER 25
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u._lock = true
REMOVE u._lock
RETURN coalesce(u.vectors, 0) AS written, coalesce(u.vectors_epoch, '') AS epoch
