// Revokes a key for good; revoking twice keeps the first revocation time. `already`: it was
// revoked before this statement.
MATCH (k:ApiKey {id: $id})
WITH k, k.revoked_at IS NOT NULL AS already
SET k.revoked_at = coalesce(k.revoked_at, datetime())
RETURN k {.*, hash: null} AS key, already
