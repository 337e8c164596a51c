// A new API key for a tenant (created on first use). Only the sha256 hash of the secret is stored;
// the prefix lets an operator recognise a key in `recmem keys list` without revealing it.
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = datetime()
CREATE (k:ApiKey {
  id: $id, tenant: $tenant, hash: $hash, prefix: $prefix, name: $label,
  created_at: datetime(), revoked_at: null
})
CREATE (t)-[:ISSUED]->(k)
RETURN k {.*, hash: null} AS key
