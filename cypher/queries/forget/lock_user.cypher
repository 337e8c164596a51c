// Write-locks the user node first, so that forgetting a user serializes with every writer and
// consolidation commit of that user (they lock the same node).
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u._lock = true
REMOVE u._lock
RETURN u.id AS id
