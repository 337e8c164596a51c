// Every key (or one tenant's keys), oldest first, without the hashes.
MATCH (k:ApiKey)
WHERE $tenant IS NULL OR k.tenant = $tenant
RETURN k {.*, hash: null} AS key
ORDER BY k.created_at, k.id
