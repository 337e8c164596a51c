// Surviving facts get a text restated from their remaining source interactions only.
UNWIND $rows AS r
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: r.id})
SET f.text = r.text, f.kind = r.kind, f.rebuilt_at = datetime()
// The new vector comes from this service's embedder: a `recmem db reembed` mark no longer holds.
REMOVE f.embedding_key
WITH f, r
CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
RETURN count(f) AS rewritten
