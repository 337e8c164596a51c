// The tenant a presented key belongs to, looked up by the hash of the secret (unique index);
// revoked keys match nothing.
MATCH (k:ApiKey {hash: $hash})
WHERE k.revoked_at IS NULL
RETURN k.id AS id, k.tenant AS tenant, k.name AS name
