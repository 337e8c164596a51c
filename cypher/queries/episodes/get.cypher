MATCH (n:Episode {tenant: $tenant, user_id: $user_id})
WHERE n.id IN $ids
RETURN n {.*, embedding: null} AS episode
