// Creates the tenant and user on first use, then write-locks the user node so that sequence
// numbers, NEXT edges and source_ref checks stay consistent under concurrent writers.
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = datetime()
MERGE (u:User {tenant: $tenant, id: $user_id})
ON CREATE SET u.user_id = $user_id, u.seq = 0, u.created_at = datetime()
MERGE (t)-[:HAS]->(u)
SET u._lock = true
REMOVE u._lock
WITH u
OPTIONAL MATCH (existing:Interaction {tenant: $tenant, user_id: $user_id})
WHERE existing.source_ref IN $source_refs
RETURN u.seq AS seq, u.last_interaction_id AS last_id,
       collect({source_ref: existing.source_ref, id: existing.id, seq: existing.seq}) AS existing
