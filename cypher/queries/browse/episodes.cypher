// Episode versions by id within one tenant (a DataLoader batch).
MATCH (n:Episode)
WHERE n.id IN $ids AND n.tenant = $tenant
RETURN n {.*, embedding: null} AS node
