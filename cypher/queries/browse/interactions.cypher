// Interactions by id within one tenant (a DataLoader batch). Ids of other tenants match nothing,
// exactly like ids that do not exist.
MATCH (n:Interaction)
WHERE n.id IN $ids AND n.tenant = $tenant
RETURN n {.*, embedding: null} AS node
