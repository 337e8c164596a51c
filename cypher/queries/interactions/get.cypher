MATCH (n:Interaction {tenant: $tenant, user_id: $user_id})
USING INDEX SEEK n:Interaction(id)  // else, on some statistics, every turn of the user
WHERE n.id IN $ids
RETURN n {.*, embedding: null} AS interaction
ORDER BY n.seq
