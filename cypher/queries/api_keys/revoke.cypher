// Revokes a key for good; revoking twice keeps the first revocation time.
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, datetime())
RETURN k {.*, hash: null} AS key
