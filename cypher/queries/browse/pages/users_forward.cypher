// One tenant's users by id, ascending, after a cursor (the last id seen); with $search, only ids
// containing it, case-insensitively. The (tenant, id) uniqueness constraint's index answers the
// tenant seek, the range on id and the order, so a page reads about $limit index entries.
// Why ORDER BY tenant too: only the full (tenant, id) order lets the planner take the index's
// order instead of sorting every user of the tenant (tenant is fixed, so the order is by id).
MATCH (u:User {tenant: $tenant})
WHERE u.id > coalesce($after_id, '')
  AND ($search IS NULL OR toLower(u.id) CONTAINS toLower($search))
WITH u
ORDER BY u.tenant ASC, u.id ASC
LIMIT $limit
RETURN u {.id, .tenant, .created_at} AS user
