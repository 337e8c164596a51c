// The user's adaptive recurrence threshold and how many turns have updated it (null before the first).
MATCH (u:User {tenant: $tenant, id: $user_id})
RETURN u.adaptive_theta_sim AS theta_sim, u.adaptive_count AS count
