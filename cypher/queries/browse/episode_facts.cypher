// The facts refined from each episode version.
MATCH (e:Episode)
USING INDEX SEEK e:Episode(id)  // else, planned on a fresh database, a scan: every tenant's
WHERE e.id IN $ids AND e.tenant = $tenant
MATCH (f:Fact)-[:DERIVED_FROM]->(e)
WHERE f.tenant = $tenant AND f.user_id = e.user_id
RETURN e.id AS anchor, f {.*, embedding: null} AS fact
ORDER BY e.id, f.valid_from, f.id
