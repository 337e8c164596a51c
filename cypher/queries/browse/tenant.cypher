// The caller's tenant (a Tenant node is made with its first key); its name when one was set.
MATCH (t:Tenant {id: $tenant})
RETURN t.id AS id, t.name AS name
