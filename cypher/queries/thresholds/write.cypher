// Stores the user's adaptive recurrence threshold, only while `holder` owns the user's lease.
MATCH (u:User {tenant: $tenant, id: $user_id})
WHERE u.lease_holder = $holder
SET u.adaptive_theta_sim = $theta_sim, u.adaptive_count = $count
RETURN count(u) AS written
