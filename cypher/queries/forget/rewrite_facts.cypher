// Surviving facts get a text restated from their remaining source interactions only.
// A new vector epoch: recall's vector cache (graph/vector_cache.py) reloads the user's vectors,
// as it learns only of nodes added since it read them.
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u.vectors_epoch = randomUUID()
WITH u
UNWIND $rows AS r
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (f:Fact {tenant: $tenant, user_id: $user_id, id: r.id})
USING INDEX SEEK f:Fact(id)
// The user's lexical statistics count the new text's words instead of the old's.
SET u.lex_facts_length = u.lex_facts_length - coalesce(f.lex_length, 0) + r.lex_length,
    f.lex_length = r.lex_length
WITH f, r
SET f.text = r.text, f.kind = r.kind, f.rebuilt_at = datetime()
// The new vector comes from this service's embedder: a `recmem db reembed` mark no longer holds.
REMOVE f.embedding_key
WITH f, r
CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
RETURN count(f) AS rewritten
