// Surviving episode versions get a summary rebuilt from their remaining interactions only, and a
// new embedding; rebuilt_at marks that their text was regenerated after a forget.
// A new vector epoch: recall's vector cache (graph/vector_cache.py) reloads the user's vectors,
// as it learns only of nodes added since it read them.
MATCH (u:User {tenant: $tenant, id: $user_id})
SET u.vectors_epoch = randomUUID()
WITH u
UNWIND $rows AS r
// By the id's unique index, pinned: on a fresh database's statistics the planner took another.
MATCH (e:Episode {tenant: $tenant, user_id: $user_id, id: r.id})
USING INDEX SEEK e:Episode(id)
// The user's lexical statistics count the new text's words instead of the old's.
SET u.lex_episodes_length = u.lex_episodes_length - coalesce(e.lex_length, 0) + r.lex_length,
    e.lex_length = r.lex_length
WITH e, r
SET e.title = r.title, e.summary = r.summary,
    e.first_at = datetime(r.first_at), e.last_at = datetime(r.last_at), e.rebuilt_at = datetime()
// The new vector comes from this service's embedder: a `recmem db reembed` mark no longer holds.
REMOVE e.embedding_key
WITH e, r
CALL db.create.setNodeVectorProperty(e, 'embedding', r.embedding)
RETURN count(e) AS rewritten
