// Consolidation runs by id within one tenant (a DataLoader batch).
MATCH (n:ConsolidationRun)
WHERE n.id IN $ids AND n.tenant = $tenant
RETURN n {.*} AS node
