// The user node itself, with its lease and counters, once everything it owned is gone.
MATCH (u:User {tenant: $tenant, id: $user_id})
DETACH DELETE u
RETURN count(*) AS erased
