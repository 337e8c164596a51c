// Facts by id within one tenant (a DataLoader batch).
MATCH (n:Fact)
WHERE n.id IN $ids AND n.tenant = $tenant
RETURN n {.*, embedding: null} AS node
