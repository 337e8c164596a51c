// First statement of every consolidation commit: a holder whose lease expired (and was taken
// over) must not write, so no two processes can each commit an episode for the same turns.
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u._lock = true
REMOVE u._lock
RETURN u.lease_holder = $holder AND u.lease_until >= datetime() AS held
