// Users by id within one tenant (a DataLoader batch); a user id is only unique inside its tenant.
MATCH (u:User {tenant: $tenant})
WHERE u.id IN $ids
RETURN u {.id, .tenant, .created_at} AS user
