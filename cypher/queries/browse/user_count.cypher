// How many of one tenant's users contain $search, case-insensitively (null: all of them).
MATCH (u:User {tenant: $tenant})
WHERE $search IS NULL OR toLower(u.id) CONTAINS toLower($search)
RETURN count(u) AS total
