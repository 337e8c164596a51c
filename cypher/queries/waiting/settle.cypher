// Drops the user's hint that it has waiting turns once none is left (after a flush, or when a
// forget removed them), so the sweeper stops looking at the user. The user is write-locked first,
// as mark.cypher's lease check does, so a turn marked meanwhile keeps the hint.
MATCH (u:User {tenant: $tenant, id: $user_id})
USING INDEX SEEK u:User(tenant, id)  // else, at times, the hint's index: every tenant's waiting users
WHERE u.awaiting = true
SET u._lock = true
REMOVE u._lock
WITH u
WHERE NOT EXISTS {
  // Pinned: planned on a fresh database, Neo4j reads every turn of the owner, or scans this index.
  MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
  USING INDEX SEEK n:Interaction(tenant, user_id, awaits)
  WHERE n.awaits IS NOT NULL AND n.consolidated = false
}
REMOVE u.awaiting
RETURN count(u) AS settled
