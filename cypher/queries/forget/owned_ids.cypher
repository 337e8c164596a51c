// Ids of all of one user's nodes of one label (chosen in code from a fixed set).
CYPHER 25
MATCH (n:$($label) {tenant: $tenant, user_id: $user_id})
RETURN collect(n.id) AS ids
