// Gives the lease back, only if we still hold it.
MATCH (u:User {tenant: $tenant, id: $user_id})
WHERE u.lease_holder = $holder
REMOVE u.lease_holder, u.lease_until
RETURN count(u) AS released
